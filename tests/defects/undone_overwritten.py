"""Undone by overwriting: a check credits a write by its call (a `called` check: "services_set_flag was called on
staging with enabled false", "tickets_update was called on PLAT-112 with priority p3") where the task asks for the
state, and the write leaves the field as it was before the episode: staging's flag turned off again after the failed
canary (it was off before the runbook turned it on), a ticket's priority set to the one it already had. Putting the
old value back changes nothing, so the take-back replay of `undone_write` never ran; but the agent that sets the field
once more to another value (staging on again, the ticket to p1) passes: the audit still holds the credited call. The
sound twin (the shipped spec) checks the field.

Found by an outside tester's mutation sweep (defects69, "a check on the app's log instead of its state"): main's gates
accepted every one. (The same check on the guard that keeps a ticket's priority as it was: main read only completion
checks' calls as credits.)

Caught by the undone-write replays (`undone_unchecked`, `_undone.undone_writes`): besides the old values put back, the
write's fields that hold a flag or one of a closed set of values are set to another value (a flag's other value, the
set's first value that is neither the written one nor the one before) by the same tool at the end of the last turn;
a `called` check of either role credits the call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference, with_call

CLASS = "undone_overwritten"
DETECTION = (
    "for each reference write a `called` check credits, replay the reference with the same tool called once more on "
    "the same record with each flag or closed-set field it sets given another value; a replay that still passes "
    "credits the call, not the field"
)


def _field_rule(spec: Spec, check_id: str) -> dict[str, Any]:
    rule = check(spec, check_id)["rule"]
    if rule["kind"] != "field":
        raise CorpusError(f"{spec['capability']}: check {check_id} is no field check")
    return rule  # type: ignore[no-any-return]


def _flag_call(spec: Spec, check_id: str) -> dict[str, Any]:
    """The last reference write of the flag the field check `check_id` reads (`flags.<flag>` of a service)."""
    rule = _field_rule(spec, check_id)
    service, flag = rule["target"]["id"], rule["target"]["field"].removeprefix("flags.")
    found = [s["call"] for t in spec["reference"] for s in t["steps"]
             if (s.get("call") or {}).get("name") == "services_set_flag"
             and s["call"]["arguments"].get("service") == service and s["call"]["arguments"].get("flag") == flag]
    if not found or found[-1]["arguments"].get("enabled") != rule["value"]:
        raise CorpusError(f"{spec['capability']}: the reference's last write of {flag} on {service} is not checked")
    return found[-1]  # type: ignore[no-any-return]


def flag_by_call(check_id: str, with_flag: bool) -> Callable[[Spec], None]:
    """The field check on the flag replaced by a `called` check on its last write (the flag named or not)."""
    def breaks(spec: Spec) -> None:
        args = dict(_flag_call(spec, check_id)["arguments"])
        if not with_flag:
            del args["flag"]
        check(spec, check_id)["rule"] = {"kind": "called", "call": {"tool": "services_set_flag", "args": args}}
    return breaks


def flag_flipped(check_id: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference, then the flag set the other way once more (staging on again)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        args = _flag_call(spec, check_id)["arguments"]
        return with_call(spec, "services_set_flag", {**args, "enabled": not args["enabled"]}, ref=reference(spec))
    return witness


def _kept_priority(spec: Spec) -> tuple[str, str]:
    """(ticket, priority) of a guard that keeps a ticket's priority the reference's update sets to what it was."""
    for c in spec["checks"]:
        rule = c["rule"]
        if c.get("role") == "guard" and rule["kind"] == "field" and rule["target"]["field"] == "priority":
            tid = rule["target"]["id"]
            if any((s.get("call") or {}).get("name") == "tickets_update"
                   and s["call"]["arguments"].get("ticket_id") == tid
                   and s["call"]["arguments"].get("priority") == rule["value"]
                   for t in spec["reference"] for s in t["steps"]):
                return tid, rule["value"]
    raise CorpusError(f"{spec['capability']}: no guard keeps a priority the reference's update writes")


def priority_by_call(spec: Spec) -> None:
    """The guard on the kept priority replaced by a `called` check on the update that wrote it."""
    tid, value = _kept_priority(spec)
    for c in spec["checks"]:
        if c.get("role") == "guard" and c["rule"]["kind"] == "field" and c["rule"]["target"]["id"] == tid \
                and c["rule"]["target"]["field"] == "priority":
            c["rule"] = {"kind": "called", "call": {"tool": "tickets_update",
                                                     "args": {"ticket_id": tid, "priority": value}}}
            return


def priority_changed(spec: Spec) -> list[dict[str, Any]]:
    """The reference, then the ticket's priority set to another one."""
    tid, value = _kept_priority(spec)
    return with_call(spec, "tickets_update", {"ticket_id": tid, "priority": "p1" if value != "p1" else "p4"},
                     ref=reference(spec))


_STAGING = ("turns staging's flag off after the failed canary, then on again: the check sees the call that turned "
            "it off, not the flag")
_PRIORITY = "triages the ticket, then sets its priority to p1: the check sees the update that kept p3, not the ticket"


def _flag(name: str, seed: int, with_flag: bool) -> Defect:
    return Defect(CLASS, name, f"synth:feature_flag_rollout@{seed}", _STAGING,
                  breaks=flag_by_call("staging-rolled-back", with_flag), witness=flag_flipped("staging-rolled-back"),
                  gate="mutations", code="undone_unchecked")


DEFECTS = [
    _flag("staging-off-by-call", 1, False),
    _flag("staging-off-by-call-2", 2, False),
    _flag("staging-off-by-call-3", 3, True),
    _flag("staging-off-by-call-5", 5, True),
    Defect(CLASS, "kept-priority-by-call", "synth:ticket_triage_update@1", _PRIORITY, breaks=priority_by_call,
           witness=priority_changed, gate="mutations", code="undone_unchecked"),
    Defect(CLASS, "kept-priority-by-call-4", "synth:ticket_triage_update@4", _PRIORITY, breaks=priority_by_call,
           witness=priority_changed, gate="mutations", code="undone_unchecked"),
]
