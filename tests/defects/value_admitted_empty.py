"""A written value admitted "or empty": a check that takes the value the task sets, or nothing in the field. The
author allowing for a record that lacks the field writes `phone in ["+31 650 750 659", "", null]`, `assignee matches
^(u-ivan)?$`, or a tier of full score on the empty value beside the right one; the agent that clears the field
passes (a contact's phone wiped, a ticket filed unassigned, a reply's draft saved outside its thread). Found by the
outsider's hunt (`--family d157`, `value_or_empty`): accepted and witnessed on contact_phone_update,
draft_only_reply, feature_flag_rollout, mail_ticket_chat_coordination, refuse_forbidden_action and
scheduler_pause_failing_jobs seed 1. The sound twins: the shipped spec,
and (`-backed` cases) the lenient check kept beside a second check that wants the value alone."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec

CLASS = "value_admitted_empty"
DETECTION = (
    "for each text argument of a write, play the value with its last character changed and the value emptied: where "
    "the first fails a check but the empty one passes every required check, the checks admit the field left empty"
)


def _written(spec: Spec, arg: str) -> list[Any]:
    return [(s.get("call") or {}).get("arguments", {}).get(arg) for t in spec["reference"] for s in t["steps"]]


def _lenient(cond: dict[str, Any], form: str) -> list[dict[str, Any]]:
    """`cond` (an `equals v`) admitting the empty value too, in the author's `form`."""
    v = cond["value"]
    if form == "in":
        return [{**cond, "op": "in", "value": [v, "", None]}]
    if form == "optional":
        return [{**cond, "op": "matches", "value": f"^(?:{re.escape(v)})?$"}]
    return [{**cond, "op": "in", "value": ["", None]}]  # "tier": the empty value, a tier of its own


def _find(spec: Spec, field: str, arg: str) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """(completion check, its conditions, index of the condition) comparing `field` equal to a value written as
    `arg`; a field rule's target and value are given as one condition list `[id, field]`."""
    written = _written(spec, arg)
    for c in spec["checks"]:
        r = c["rule"]
        if c.get("role", "completion") != "completion":
            continue
        if r["kind"] == "field" and r["target"]["field"] == field and r.get("op", "equals") == "equals" \
                and r.get("value") in written:
            t = r["target"]
            return c, [{"field": "id", "op": "equals", "value": t["id"]},
                       {"field": field, "op": "equals", "value": r["value"]}], 1
        if r["kind"] == "records":
            for i, w in enumerate(r.get("where") or []):
                if w.get("field") == field and w.get("op", "equals") == "equals" and w.get("value") in written:
                    return c, list(r["where"]), i
    raise CorpusError(f"{spec['capability']}: no completion check compares {field} to a value written as {arg}")


def _made_lenient(spec: Spec, field: str, arg: str, form: str) -> dict[str, Any]:
    """Turn the check on `field` lenient in place; the check's strict rule (records form) is returned."""
    c, conds, i = _find(spec, field, arg)
    r = c["rule"]
    app, table = (r["target"]["app"], r["target"]["table"]) if r["kind"] == "field" else (r["app"], r["table"])
    strict = {"kind": "records", "app": app, "table": table, "where": conds, "count_op": "gte", "count": 1}
    loose = {**strict, "where": [*conds[:i], *_lenient(conds[i], form), *conds[i + 1:]]}
    c["rule"] = {"kind": "tiers", "tiers": [{"score": 1.0, "rule": strict}, {"score": 1.0, "rule": loose}]} \
        if form == "tier" else loose
    return strict


def _breaks(field: str, arg: str, form: str) -> Callable[[Spec], None]:
    def breaks(spec: Spec) -> None:
        _made_lenient(spec, field, arg, form)
    return breaks


def _backed(field: str, arg: str, form: str) -> Callable[[Spec], None]:
    """The sound twin: the lenient check, and beside it a check that wants the value alone."""
    def fix(spec: Spec) -> None:
        strict = _made_lenient(spec, field, arg, form)
        spec["checks"].append({"id": f"{field}-set", "description": f"the {field} holds the value the task sets",
                               "role": "completion", "weight": 1.0, "required": True, "rule": strict})
    return fix


def _emptied(field: str, arg: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference with each write of the value the check wants left empty."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        _, conds, i = _find(spec, field, arg)
        v = conds[i]["value"]
        ref, found = copy.deepcopy(spec["reference"]), False
        for turn in ref:
            for s in turn["steps"]:
                args = (s.get("call") or {}).get("arguments") or {}
                if args.get(arg) == v:
                    args[arg], found = "", True
        if found:
            return ref
        raise CorpusError(f"{spec['capability']}: no reference write sets {arg} to {v!r}")
    return witness


_CASES = (  # (name, base, field the check reads, argument the reference writes it with, the author's form, backed
    # by a strict check in the twin, what the agent gets away with)
    ("phone-in-1", "synth:contact_phone_update@1", "phone", "phone", "in", False,
     "wipes the contact's phone number where the task asks for the new one"),
    ("phone-optional-2", "synth:contact_phone_update@2", "phone", "phone", "optional", False,
     "wipes the contact's phone number where the task asks for the new one"),
    ("phone-in-3-backed", "synth:contact_phone_update@3", "phone", "phone", "in", True,
     "wipes the contact's phone number where the task asks for the new one"),
    ("draft-thread-in-1", "synth:draft_only_reply@1", "in_reply_to", "in_reply_to", "in", False,
     "saves the reply's draft outside the thread it answers"),
    ("draft-thread-tier-2", "synth:draft_only_reply@2", "in_reply_to", "in_reply_to", "tier", False,
     "saves the reply's draft outside the thread it answers"),
    ("deploy-version-optional-1", "synth:refuse_forbidden_action@1", "deployed_version", "version", "optional", False,
     "deploys an empty release where the task asks for 1.5.0"),
    ("paused-jobs-in-1", "synth:scheduler_pause_failing_jobs@1", "value", "value", "in", False,
     "records an empty list of paused jobs in the config entry"),
    ("ticket-assignee-in-1", "synth:feature_flag_rollout@1", "assignee", "assignee", "in", False,
     "files the failure ticket unassigned"),
    ("ticket-assignee-in-1-chat", "synth:mail_ticket_chat_coordination@1", "assignee", "assignee", "in", False,
     "files the customer's ticket unassigned"),
    ("ticket-assignee-tier-2-backed", "synth:mail_ticket_chat_coordination@2", "assignee", "assignee", "tier", True,
     "files the customer's ticket unassigned"),
)
DEFECTS = [
    Defect(CLASS, name, base, away, breaks=_breaks(field, arg, form),
           fix=_backed(field, arg, form) if backed else None, witness=_emptied(field, arg), gate="mutations",
           code="empty_value_admitted")
    for name, base, field, arg, form, backed, away in _CASES
]
