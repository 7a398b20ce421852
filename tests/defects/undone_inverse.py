"""Undone by the inverse: the writer checks a change by a trace it leaves rather than by its effect, and the app
has a tool that takes the change back while keeping the trace. The access grant checked only by the config version
that lists the requester (`services_rollback_config` to the old version keeps that record but the service no longer
runs it); the standard's fix checked only by the new config's values, not that the service runs it; the mails'
label checked by the `mail_label` call (a second call with `remove` takes it off, the audit keeps the first); the
restock checked by the movement into the store in the ledger (a transfer back leaves that movement where it was). An
agent that does the work and then undoes it passes. The sound twin (the shipped spec) checks the effect too: the
service's active `config_version`, the mail's labels, the quantities on the shelves.

Caught by the inverse replay (`undone_unchecked`, `inverse_writes` in `_undone`): each reference write with an
inverse the agent is given is taken back by it at the end of the last turn; a replay that still passes checks a trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, base_spec, reference, with_call

CLASS = "undone_inverse"
DETECTION = (
    "replay the reference with each write that has an inverse the agent is given taken back by it at the end "
    "(a config rolled back to the version before, a label taken off, a transfer sent back, an adjustment reversed); "
    "a replay that still passes checks a trace the undo leaves (a config version, a movement, the call), not the "
    "effect"
)


def _calls(spec: Spec, tool: str) -> list[dict[str, Any]]:
    found = [s["call"] for t in spec["reference"] for s in t["steps"] if (s.get("call") or {}).get("name") == tool]
    if not found:
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")
    return found


def _drop(pred: Callable[[dict[str, Any]], bool], what: str) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        kept = [c for c in spec["checks"] if not pred(c)]
        if len(kept) == len(spec["checks"]):
            raise CorpusError(f"{spec['capability']}: no {what} check")
        spec["checks"] = kept
    return edit


def _runs_version(c: dict[str, Any]) -> bool:
    """A check that a service runs a config version (the effect of the update)."""
    r = c["rule"]
    return r["kind"] == "field" and r["target"]["table"] == "services" and r["target"]["field"] == "config_version"


def _version_before(spec: Spec, service: str) -> int:
    for row in spec["world"]["apps"]["services"]["services"]:
        if row["id"] == service:
            return int(row.get("config_version", 1))
    raise CorpusError(f"{spec['capability']}: no service {service}")


def _rolled_back(spec: Spec) -> list[dict[str, Any]]:
    """The reference, then every service it reconfigured rolled back to the version it ran before."""
    ref = reference(spec)
    for service in dict.fromkeys(c["arguments"]["service"] for c in _calls(spec, "services_update_config")):
        ref = with_call(spec, "services_rollback_config",
                        {"service": service, "to_version": _version_before(spec, service)}, ref=ref)
    return ref


# -- the incident's fix credited by the order checks ------------------------------------------------------------------
def _fix_by_order(spec: Spec) -> None:
    """The check that the root cause is gone (the service's release or config version) dropped: the order checks that
    the ticket comes after the fix credit the deploy or rollback call."""
    _drop(lambda c: c["id"] == "fixed", "root cause")(spec)
    if not any(c["rule"]["kind"] == "order" for c in spec["checks"]):
        raise CorpusError(f"{spec['capability']}: no order check credits the fix")


def _fix_undone(spec: Spec) -> list[dict[str, Any]]:
    """The reference, then the fix taken back: the bad release deployed again, or the bad config version restored."""
    ref = reference(spec)
    for tool in ("services_deploy", "services_rollback_config"):
        found = [c for t in spec["reference"] for s in t["steps"] if (c := s.get("call")) and c["name"] == tool]
        for call in found:
            service = next(r for r in spec["world"]["apps"]["services"]["services"]
                           if r["id"] == call["arguments"]["service"])
            args = ({"service": service["id"], "version": service["deployed_version"]} if tool == "services_deploy"
                    else {"service": service["id"], "to_version": service["config_version"]})
            return with_call(spec, tool, args, ref=ref)
    raise CorpusError(f"{spec['capability']}: the reference neither deploys nor rolls back")


# -- the label checked by the call ---------------------------------------------------------------------------------
def _label_by_call(spec: Spec) -> None:
    """The checks on each mail's labels replaced by one `called` check on the `mail_label` call that adds the label."""
    call = _calls(spec, "mail_label")[-1]
    labelled = [c for c in spec["checks"] if c["rule"]["kind"] == "field" and c["rule"]["target"]["field"] == "labels"]
    if not labelled:
        raise CorpusError(f"{spec['capability']}: no check on the mails' labels")
    spec["checks"] = [c for c in spec["checks"] if c not in labelled]
    spec["checks"].append({"id": "mails-labelled", "description": "the request mails were labelled",
                           "rule": {"kind": "called", "call": {"tool": "mail_label",
                                                               "args": {"message_ids": list(call["arguments"]["message_ids"]),
                                                                        "add": list(call["arguments"]["add"])}}}})


def _unlabelled(spec: Spec) -> list[dict[str, Any]]:
    call = _calls(spec, "mail_label")[-1]["arguments"]
    return with_call(spec, "mail_label", {"message_ids": list(call["message_ids"]), "remove": list(call["add"])})


# -- the restock checked by the ledger -----------------------------------------------------------------------------
def _restock_by_ledger(spec: Spec) -> None:
    """The checks on the shelves' quantities replaced by one check per transfer that the ledger holds the movement
    into the store."""
    quantities = [c for c in spec["checks"] if c["rule"]["kind"] == "field"
                  and c["rule"]["target"]["table"] == "items" and c["rule"]["target"]["field"] == "quantity"]
    if not quantities:
        raise CorpusError(f"{spec['capability']}: no check on the items' quantities")
    spec["checks"] = [c for c in spec["checks"] if c not in quantities]
    for call in _calls(spec, "inventory_transfer"):
        a = call["arguments"]
        sku = a["item_id"].split("@", 1)[0]
        spec["checks"].append({
            "id": f"moved-{sku}", "description": f"{a['quantity']} x {sku} moved into {a['to_location']}", "weight": 2,
            "rule": {"kind": "records", "app": "inventory", "table": "movements",
                     "where": [{"field": "item", "value": f"{sku}@{a['to_location']}"},
                               {"field": "delta", "value": a["quantity"]}],
                     "count_op": "gte", "count": 1}})


def _sent_back(spec: Spec) -> list[dict[str, Any]]:
    ref = reference(spec)
    for call in _calls(spec, "inventory_transfer"):
        a = call["arguments"]
        sku, source = a["item_id"].split("@", 1)
        ref = with_call(spec, "inventory_transfer",
                        {"item_id": f"{sku}@{a['to_location']}", "to_location": source, "quantity": a["quantity"]},
                        ref=ref)
    return ref


def _defect(name: str, base: str, breaks: Callable[[Spec], None], witness: Callable[[Spec], list[dict[str, Any]]],
            away: str) -> Defect:
    base_spec(base)  # fail early on a base that is gone
    return Defect(CLASS, name, base, away, breaks=breaks, witness=witness, witness_kind="cheat", gate="mutations",
                  code="undone_unchecked")


_GRANT = ("grants the access and rolls the config back to the old version: the new version still lists the requester, "
          "so the check on it passes, but the service no longer runs it")
_FIX = ("writes the compliant config and rolls each service back to its old version: the new versions hold the "
        "right value, the services run the broken ones")
_LABEL = "labels the mails and takes the label off again: the check wants the call, which the audit keeps"
_STOCK = ("transfers the units to the store and sends them back: the ledger keeps the movement into the store, the "
          "shelves are as low as before")
_INCIDENT = ("fixes the incident, files the ticket and then deploys the bad release (or restores the bad config) "
             "again: the order checks credit the fix call, the service's status stays as the fix left it")
_APPROVE = "synth:access_request_approval@"
_STANDARD = "synth:correct_bad_data@"
_TRACK = "synth:todo_track_mail_requests@"
_RESTOCK = "synth:inventory_restock_policy@"
_NO_ACTIVE = _drop(_runs_version, "service's active config version")

DEFECTS = [
    *(_defect(f"grant-rolled-back-{n}", f"{_APPROVE}{n}", _NO_ACTIVE, _rolled_back, _GRANT) for n in (1, 2, 4)),
    *(_defect(f"standard-fix-rolled-back-{n}", f"{_STANDARD}{n}", _NO_ACTIVE, _rolled_back, _FIX) for n in (3, 4)),
    *(_defect(f"incident-{kind}-undone-{n}", f"synth:incident_investigate_fix@{n}", _fix_by_order, _fix_undone,
              _INCIDENT) for kind, n in (("deploy", 3), ("deploy", 6), ("rollback", 4), ("rollback", 7))),
    *(_defect(f"label-removed-{n}", f"{_TRACK}{n}", _label_by_call, _unlabelled, _LABEL) for n in (1, 2, 3)),
    *(_defect(f"restock-sent-back-{n}", f"{_RESTOCK}{n}", _restock_by_ledger, _sent_back, _STOCK) for n in (1, 2, 3)),
]
