"""Instant pinned: a call matcher that compares a date-time argument as a string. The writer's `order` check wants
`calendar_create_event` with `start: "2026-11-03T09:30:00Z"` before the booking mail, or a `called` check wants
`todo_add_task` with `due: "2026-06-07T07:00:00-05:00"` (the offset the sender's mail gave); the tools store every
time in UTC, so the state is the same whichever way the agent writes the instant, but the audit keeps the argument as
written. An honest agent that books the meeting in the user's zone (`2026-11-03T13:30:00+04:00`, as the user asked to
see it) or files the due time in UTC fails the check. The sound twin matches the call without the time (the records
checks already pin the instant in the state)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from tests.defects._core import CorpusError, Defect, Spec, check, reference
from tests.defects.zone_pinned import zone_of

CLASS = "instant_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "respell each date-time argument of a reference call a matcher (called, order, a dynamics rule, a turn condition) "
    "matches as the same instant in the user's zone (or in UTC); where the matcher then misses and a check fails, it "
    "compares the time as a string"
)


def _first_call(ref: list[dict[str, Any]], tool: str, capability: str, last: bool = False) -> dict[str, Any]:
    found = [st["call"] for turn in ref for st in turn["steps"] if st.get("call") and st["call"]["name"] == tool]
    if not found:
        raise CorpusError(f"{capability}: the reference never calls {tool}")
    return found[-1] if last else found[0]  # type: ignore[no-any-return]


def _respelled(value: str, tz: str) -> str:
    """The same instant in the zone `tz`, or in UTC where `value` is already written in that zone's offset (a `Z`
    time of a UTC user as `+00:00`)."""
    when = datetime.fromisoformat(value)
    local = when.astimezone(ZoneInfo(tz)).isoformat()
    if local[-6:] != ("+00:00" if value.endswith("Z") else value[-6:]) or value.endswith("Z"):
        return local
    return when.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pin_order(check_id: str, tool: str, arg: str, last: bool = False) -> Any:
    """The order check's first call matcher also wants the reference's time, as the reference wrote it."""
    def breaks(spec: Spec) -> None:
        value = _first_call(spec["reference"], tool, spec["capability"], last)["arguments"][arg]
        rule = check(spec, check_id)["rule"]
        if rule["first"]["tool"] != tool:
            raise CorpusError(f"{spec['capability']}: {check_id} does not start with {tool}")
        rule["first"]["args"][arg] = value
    return breaks


def _pin_called(tool: str, arg: str, last: bool = False) -> Any:
    """A `called` check for the write with the reference's time as the reference wrote it."""
    def breaks(spec: Spec) -> None:
        call = _first_call(spec["reference"], tool, spec["capability"], last)
        keep = {k: v for k, v in call["arguments"].items() if k in ("title", "event_id", "list_id")}
        spec["checks"].append({"id": f"{tool}-at-time", "description": f"{tool} was called for the asked time",
                               "rule": {"kind": "called", "call": {"tool": tool, "args": {**keep, arg: call["arguments"][arg]}}}})
    return breaks


def _unpinned_called(tool: str, last: bool = False) -> Any:
    """The sound twin: the same `called` check without the time (the records checks pin the instant)."""
    def fix(spec: Spec) -> None:
        call = _first_call(spec["reference"], tool, spec["capability"], last)
        keep = {k: v for k, v in call["arguments"].items() if k in ("title", "event_id", "list_id")}
        spec["checks"].append({"id": f"{tool}-at-time", "description": f"{tool} was called",
                               "rule": {"kind": "called", "call": {"tool": tool, "args": keep}}})
    return fix


def _written_otherwise(tool: str, args: tuple[str, ...], last: bool = False) -> Any:
    """The honest agent: the reference with the write's times spelled in the user's zone (or in UTC)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        call = _first_call(ref, tool, spec["capability"], last)
        tz = zone_of(spec, spec["user"])
        for arg in args:
            call["arguments"][arg] = _respelled(call["arguments"][arg], tz)
        return ref
    return witness


_EVENT = ("start", "end")
DEFECTS = [
    *(Defect(CLASS, f"booked-before-mail-start-{seed}", f"synth:schedule_meeting_timezones@{seed}",
             "is failed for booking the meeting with its start written in the user's zone: the order check compares "
             "the start as the reference's UTC string",
             breaks=_pin_order("booked-before-mail", "calendar_create_event", "start"),
             witness=_written_otherwise("calendar_create_event", _EVENT), witness_kind="honest")
      for seed in (1, 2, 3, 4)),
    *(Defect(CLASS, f"moved-before-dm-start-{seed}", f"synth:reschedule_conflict@{seed}",
             "is failed for moving the meeting with its start written in another offset: the order check compares the "
             "start as the reference's string",
             breaks=_pin_order("move-before-dm", "calendar_update_event", "start"),
             witness=_written_otherwise("calendar_update_event", _EVENT), witness_kind="honest")
      for seed in (1, 2, 3)),
    Defect(CLASS, "roadmap-moved-before-mail-start", "example:meeting_reschedule",
           "is failed for moving the roadmap review with its start in UTC: the order check wants '+02:00' as written",
           breaks=_pin_order("update-before-mail", "calendar_update_event", "start"),
           witness=_written_otherwise("calendar_update_event", _EVENT), witness_kind="honest"),
    *(Defect(CLASS, f"task-due-called-{seed}", f"synth:todo_track_mail_requests@{seed}",
             "is failed for filing the first request's due time in UTC: the called check wants the sender's offset",
             breaks=_pin_called("todo_add_task", "due"), fix=_unpinned_called("todo_add_task"),
             witness=_written_otherwise("todo_add_task", ("due",)), witness_kind="honest")
      for seed in (1, 2, 3)),
    *(Defect(CLASS, f"shifted-meeting-called-{seed}", f"synth:adapt_announced_change@{seed}",
             "is failed for shifting the meeting with its start in the user's zone: the called check wants the UTC "
             "string",
             breaks=_pin_called("calendar_update_event", "start", last=True),
             fix=_unpinned_called("calendar_update_event", last=True),
             witness=_written_otherwise("calendar_update_event", _EVENT, last=True), witness_kind="honest")
      for seed in (2, 3)),
]
