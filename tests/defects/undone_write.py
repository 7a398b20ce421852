"""Undone write credited: the writer checks a change by the call that made it (a `called` check: "tickets_update was
called on PLAT-113 with assignee u-sofia") instead of by the record's final state. An agent that makes the change and
then takes it back (the same tool, the old value) passes: the audit still holds the call, the record holds nothing.
The sound twin checks the record's field.

The same where the writer leaves the field to an `order` check ("the alert is resolved after the fix", "the ticket
goes in progress after the delegate was asked") and drops the check on the record's status: the order check holds
once both calls are in the audit, so resolving the alert and reopening it passes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson

from tests.defects._core import CorpusError, Defect, Spec, drop_checks, reference, with_call

CLASS = "undone_write"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "for each reference write a completion `called` or `order` check matches, replay the reference with the same "
    "tool called once more on the same record, every field it set back to its value before the episode; a replay "
    "that still passes credits the call, not its effect"
)


def _write(spec: Spec, tool: str, nth: int = 0) -> dict[str, Any]:
    found = [s["call"] for t in spec["reference"] for s in t["steps"] if (s.get("call") or {}).get("name") == tool]
    if len(found) <= nth:
        raise CorpusError(f"{spec['capability']}: the reference makes no write {nth} of {tool}")
    return found[nth]  # type: ignore[no-any-return]


def _record(spec: Spec, app: str, rid: str) -> tuple[str, dict[str, Any]]:
    for table, rows in spec["world"]["apps"][app].items():
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict) and row.get("id") == rid:
                return table, row
    raise CorpusError(f"{spec['capability']}: no record {rid!r} in {app}")


def _target(spec: Spec, tool: str, nth: int) -> tuple[str, str, str, str, dict[str, Any], dict[str, Any]]:
    """(app, table, record argument, id, the fields the write sets that the record holds, their values before)."""
    call = _write(spec, tool, nth)
    app = tool.split("_", 1)[0]
    arg, rid = next(iter(call["arguments"].items()))
    table, row = _record(spec, app, rid)
    sets = {k: v for k, v in call["arguments"].items() if k != arg and k in row and row[k] != v}
    if not sets:
        raise CorpusError(f"{spec['capability']}: {tool} sets no field of {rid} to a new value")
    return app, table, arg, rid, sets, {k: row[k] for k in sets}


def _audit_only(tool: str, nth: int = 0):  # type: ignore[no-untyped-def]
    """The completion checks on the fields the write sets, replaced by one `called` check on the write."""

    def edit(spec: Spec) -> None:
        app, table, arg, rid, sets, _ = _target(spec, tool, nth)

        def reads(c: dict[str, Any]) -> bool:
            r = c["rule"]
            return (r["kind"] == "field" and c.get("role") != "guard" and not c.get("safety")
                    and (r["target"]["app"], r["target"]["table"], r["target"]["id"]) == (app, table, rid)
                    and r["target"]["field"] in sets)
        dropped = [c for c in spec["checks"] if reads(c)]
        if not dropped:
            raise CorpusError(f"{spec['capability']}: no completion check reads the fields {tool} sets on {rid}")
        fields = {c["rule"]["target"]["field"] for c in dropped}
        spec["checks"] = [c for c in spec["checks"] if not reads(c)]
        args = {arg: rid, **{k: v for k, v in sets.items() if k in fields and k not in _PERSON}}
        # A person is matched in every spelling the tool takes (one spelling pinned is another defect).
        where = [_is_person(spec, k, v) for k, v in sets.items() if k in fields and k in _PERSON]
        spec["checks"].append({"id": f"{rid}-{'-'.join(sorted(fields))}-set", "description": f"{rid} updated",
                               "rule": {"kind": "called", "call": {"tool": tool, "args": args, "where": where}}})
    return edit


_PERSON = {"assignee"}


def _is_person(spec: Spec, field: str, pid: str) -> dict[str, Any]:
    """A `matches` condition on the person's id, or their email or chat handle in any case with an optional @."""
    person = next(p for p in spec["world"]["apps"]["directory"]["people"] if p["id"] == pid)
    names = "|".join(re.escape(n) for n in (person.get("email"), person.get("chat_handle")) if n)
    return {"field": field, "op": "matches", "value": f"^(?:{re.escape(pid)}|@*(?i:{names}))$"}


def _undone(tool: str, nth: int = 0):  # type: ignore[no-untyped-def]
    """The reference, then the same tool on the same record with every field it set back to its old value."""

    def witness(spec: Spec) -> list[dict[str, Any]]:
        _, _, arg, rid, _, before = _target(spec, tool, nth)
        return with_call(spec, tool, {arg: rid, **before}, ref=reference(spec))
    return witness


def _status_write(spec: Spec, status: str) -> int:
    """Which `tickets_update` of the reference sets `status`."""
    found = [s["call"] for t in spec["reference"] for s in t["steps"]
             if (s.get("call") or {}).get("name") == "tickets_update"]
    for n, call in enumerate(found):
        if call["arguments"].get("status") == status:
            return n
    raise CorpusError(f"{spec['capability']}: the reference sets no ticket to {status!r}")


def _order_credited(status: str):  # type: ignore[no-untyped-def]
    """The completion check on the ticket's status dropped: an `order` check on the write stands for it."""

    def edit(spec: Spec) -> None:
        _, _, _, rid, _, _ = _target(spec, "tickets_update", _status_write(spec, status))
        if not any(c["rule"]["kind"] == "order" and rid in orjson.dumps(c["rule"]).decode() for c in spec["checks"]):
            raise CorpusError(f"{spec['capability']}: no order check names {rid}")
        drop_checks(spec, lambda c: c["rule"]["kind"] == "field" and c["rule"]["target"]["id"] == rid
                    and c["rule"]["target"]["field"] == "status" and c["rule"].get("value") == status)
    return edit


def _status_undone(status: str) -> Callable[[Spec], list[dict[str, Any]]]:
    def witness(spec: Spec) -> list[dict[str, Any]]:
        return _undone("tickets_update", _status_write(spec, status))(spec)  # type: ignore[no-any-return]
    return witness


def _by_order(name: str, base: str, status: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_order_credited(status), witness=_status_undone(status),
                  gate="mutations", code="undone_unchecked")


def _pair(name: str, base: str, tool: str, away: str, nth: int = 0) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_audit_only(tool, nth), witness=_undone(tool, nth),
                  gate="mutations", code="undone_unchecked")


_TICKET = "assigns the ticket as asked, then hands it back to its old assignee: the check sees only the first call"
_JOB = "disables the failing job, then enables it again: the check sees only the first call"
_PHONE = "fixes the contact's phone, then writes the old number back: the check sees only the first call"
_MEETING = "moves the meeting, then moves it back: the check sees only the first call"
_RESOLVED = "resolves the alert after the fix, then reopens it: the order check sees the two calls, not the status"
_STARTED = "puts the ticket in progress after asking, then back to open: the order check sees the calls, not the status"

DEFECTS = [
    _pair("triage-assignee-undone", "synth:ticket_triage_update@1", "tickets_update", _TICKET, nth=1),
    _pair("triage-assignee-undone-2", "synth:ticket_triage_update@2", "tickets_update", _TICKET),
    _pair("handoff-assignee-undone", "synth:oncall_handoff@1", "tickets_update", _TICKET),
    _pair("delegated-assignee-undone", "synth:adapt_announced_change@1", "tickets_update", _TICKET),
    _pair("paused-job-undone", "synth:scheduler_pause_failing_jobs@1", "scheduler_update_job", _JOB),
    _pair("paused-job-undone-2", "synth:scheduler_pause_failing_jobs@2", "scheduler_update_job", _JOB),
    _pair("phone-undone", "synth:contact_phone_update@1", "contacts_update", _PHONE),
    _pair("phone-undone-2", "synth:contact_phone_update@2", "contacts_update", _PHONE),
    _pair("meeting-move-undone", "synth:reschedule_conflict@1", "calendar_update_event", _MEETING),
    _pair("meeting-move-undone-2", "synth:reschedule_conflict@2", "calendar_update_event", _MEETING),
    _by_order("alert-resolved-by-order", "synth:adapt_silent_change@1", "resolved", _RESOLVED),
    _by_order("alert-resolved-by-order-2", "synth:adapt_silent_change@2", "resolved", _RESOLVED),
    _by_order("in-progress-by-order", "synth:delegate_and_follow_up@1", "in_progress", _STARTED),
    _by_order("in-progress-by-order-3", "synth:delegate_and_follow_up@3", "in_progress", _STARTED),
]


# -- a keyed write: services_set_flag sets one key of the service's `flags` ------------------------------------------
def _flag_write(spec: Spec, check_id: str) -> dict[str, Any]:
    """The flag write the field check `check_id` reads ("flags.<flag>" of a service)."""
    rule = next((c["rule"] for c in spec["checks"] if c["id"] == check_id), None)
    if rule is None or rule["kind"] != "field" or not rule["target"]["field"].startswith("flags."):
        raise CorpusError(f"{spec['capability']}: no field check {check_id!r} on a flag")
    service, flag = rule["target"]["id"], rule["target"]["field"].removeprefix("flags.")
    for t in spec["reference"]:
        for s in t["steps"]:
            call = s.get("call") or {}
            if call.get("name") == "services_set_flag" and call["arguments"] == {
                    "service": service, "flag": flag, "enabled": rule["value"]}:
                return call  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: the reference never sets {flag} on {service} to {rule['value']!r}")


def _flag_credited(check_id: str):  # type: ignore[no-untyped-def]
    """The field check on the flag dropped: the `order` checks naming the flag's write stand for it."""

    def edit(spec: Spec) -> None:
        call = _flag_write(spec, check_id)
        if not any(c["rule"]["kind"] == "order" and orjson.dumps(call["arguments"]).decode()[1:-1]
                   in orjson.dumps(c["rule"]).decode() for c in spec["checks"]):
            raise CorpusError(f"{spec['capability']}: no order check names the write {check_id} reads")
        drop_checks(spec, lambda c: c["id"] == check_id)
    return edit


def _flag_undone(check_id: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference, then the flag set back to its value before the episode."""

    def witness(spec: Spec) -> list[dict[str, Any]]:
        args = _flag_write(spec, check_id)["arguments"]
        return with_call(spec, "services_set_flag", {**args, "enabled": not args["enabled"]}, ref=reference(spec))
    return witness


def _by_flag(name: str, base: str, check_id: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_flag_credited(check_id), witness=_flag_undone(check_id),
                  gate="mutations", code="undone_unchecked")


_PROD = "turns the flag on in production, then off again: the order check sees the calls, not the flag"
_FIX = "turns the breaking flag off, then on again: the order check on the ticket sees the call, not the flag"
_STAGING = "turns the flag on in staging, goes to production, then turns staging off: the order check sees the calls"

DEFECTS += [
    _by_flag("prod-flag-by-order-6", "synth:feature_flag_rollout@6", "live-in-prod", _PROD),
    _by_flag("prod-flag-by-order-8", "synth:feature_flag_rollout@8", "live-in-prod", _PROD),
    _by_flag("staging-flag-by-order-6", "synth:feature_flag_rollout@6", "live-in-staging", _STAGING),
    _by_flag("staging-flag-by-order-8", "synth:feature_flag_rollout@8", "live-in-staging", _STAGING),
    _by_flag("incident-flag-fix-by-order", "synth:incident_investigate_fix@1", "fixed", _FIX),
    _by_flag("incident-flag-fix-by-order-5", "synth:incident_investigate_fix@5", "fixed", _FIX),
    _by_flag("incident-flag-fix-by-order-9", "synth:incident_investigate_fix@9", "fixed", _FIX),
]
