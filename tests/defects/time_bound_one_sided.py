"""Time bound one-sided: the task fixes when a meeting ends (it keeps its length, or the user gives it), and the check
bounds the end on one side only: `end` `lte` 15:00 ("ends by three") where the reference's end is 15:00, or the
booking's `where` condition on `end` the same. The bound holds for every earlier end, so the agent that cuts the
meeting short (14:30, a one-hour review booked for 30 minutes) passes. The sound twin (the shipped spec) wants the
end itself.

Found by an outside tester's mutation sweep (defects65): main's gates accepted every one, since the time near misses
moved a date-time an hour either way, a quarter hour later or a day later: an hour earlier puts the end on the start
(the calendar refuses it, so the start's check fails too) and nothing moved it a little earlier.

Caught by the time near misses (`mutant_survived`, `mutations.shift_times`), which now move a date-time a quarter hour
earlier as well (and a date without a time, a to-do's due day, a day either way): the meeting that ends 15 minutes
early must fail a check.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "time_bound_one_sided"
DETECTION = (
    "move each date-time the reference writes a little both ways (a quarter hour earlier as well as later); a "
    "meeting cut short that passes every check has its end bounded on one side only"
)

_EVENT_WRITES = ("calendar_update_event", "calendar_create_event")


def _end_bounds(spec: Spec) -> list[dict[str, Any]]:
    """Every check condition on a calendar event's `end` that wants one value: a field check's rule, a records
    check's `where` condition."""
    out: list[dict[str, Any]] = []
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["app"] == "calendar" and rule["target"]["field"] == "end" \
                and rule.get("op", "equals") == "equals":
            out.append(rule)
        elif rule["kind"] == "records" and rule["app"] == "calendar":
            out += [w for w in rule["where"] if w["field"] == "end" and w.get("op", "equals") == "equals"]
    return out


def end_bounded(op: str) -> Callable[[Spec], None]:
    """The checks on the meeting's end bound it on one side (`lte`, or `lt` a minute past it)."""
    def breaks(spec: Spec) -> None:
        bounds = _end_bounds(spec)
        if not bounds:
            raise CorpusError(f"{spec['capability']}: no check wants a calendar event's end")
        for bound in bounds:
            bound["op"] = op
            if op == "lt":
                bound["value"] = _moved(bound["value"], timedelta(minutes=1))
    return breaks


def _moved(value: str, delta: timedelta) -> str:
    text = (datetime.fromisoformat(value) + delta).isoformat()
    return text.replace("+00:00", "Z") if value.endswith("Z") else text


def cut_short(spec: Spec) -> list[dict[str, Any]]:
    """The reference with the meeting it books or moves lasting half as long (ending earlier, starting as it did)."""
    ref = reference(spec)
    for turn in ref:
        for step in turn["steps"]:
            call = step.get("call")
            args = call["arguments"] if call else {}
            if call and call["name"] in _EVENT_WRITES and "end" in args and "start" in args:
                length = datetime.fromisoformat(args["end"]) - datetime.fromisoformat(args["start"])
                args["end"] = _moved(args["end"], -length / 2)
                return ref
    raise CorpusError(f"{spec['capability']}: the reference books or moves no meeting with an end")


_AWAY = "books the meeting for half the time asked: the check wants it to end by the time, not at it"

DEFECTS = [
    Defect(CLASS, "moved-review-end-lte", "example:meeting_reschedule",
           "moves the one-hour review to 14:00-14:30: the check wants it to end by 15:00, not at 15:00",
           breaks=end_bounded("lte"), witness=cut_short, gate="mutations", code="mutant_survived"),
    Defect(CLASS, "moved-review-end-lt", "example:meeting_reschedule",
           "moves the one-hour review to 14:00-14:30: the check wants it to end before 15:01",
           breaks=end_bounded("lt"), witness=cut_short, gate="mutations", code="mutant_survived"),
    Defect(CLASS, "rescheduled-end-lte", "synth:reschedule_conflict@1", _AWAY, breaks=end_bounded("lte"),
           witness=cut_short, gate="mutations", code="mutant_survived"),
    Defect(CLASS, "rescheduled-end-lte-2", "synth:reschedule_conflict@2", _AWAY, breaks=end_bounded("lte"),
           witness=cut_short, gate="mutations", code="mutant_survived"),
    Defect(CLASS, "booked-end-lte", "synth:schedule_meeting_timezones@1", _AWAY, breaks=end_bounded("lte"),
           witness=cut_short, gate="mutations", code="mutant_survived"),
    Defect(CLASS, "booked-end-lt", "synth:schedule_meeting_timezones@2", _AWAY, breaks=end_bounded("lt"),
           witness=cut_short, gate="mutations", code="mutant_survived"),
]
