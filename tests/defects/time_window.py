"""Time windows off by a time zone: "the earliest slot free for everyone" checked as "some time between 09:00 and
17:00" read in UTC, so a slot outside the people's own working hours, or hours later than the earliest, passes."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, reference

CLASS = "time_window"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'shift a time argument by +-1h or to the end of the day; a surviving mutant means the window is loose (often read in the wrong time zone)'
)
_FMT = "%Y-%m-%dT%H:%M:%SZ"


def _utc(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _window(day: str) -> tuple[str, str]:
    return f"{day}T09:00:00Z", f"{day}T17:00:00Z"


def _times(spec: Spec) -> tuple[str, str]:
    """The expected start and end the spec's checks pin."""
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] == "start" and rule["op"] == "equals":
            end = next(d["rule"]["value"] for d in spec["checks"] if d["rule"]["kind"] == "field"
                       and d["rule"]["target"]["field"] == "end" and d["rule"]["target"]["id"] == rule["target"]["id"])
            return rule["value"], end
        if rule["kind"] == "records" and rule["table"] == "events":
            found = {w["field"]: w["value"] for w in rule["where"] if w["field"] in ("start", "end")}
            if len(found) == 2:
                return found["start"], found["end"]
    raise CorpusError(f"{spec['capability']}: no exact start/end check")


def _loosen(spec: Spec) -> None:
    """Every exact start/end pin becomes the 09:00-17:00 UTC window of its day."""
    lo, hi = _window(_times(spec)[0][:10])
    for c in list(spec["checks"]):
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] in ("start", "end") and rule["op"] == "equals":
            rule["op"], rule["value"] = "gte", lo
            spec["checks"].append({**c, "id": c["id"] + "-by-17", "rule": {**rule, "op": "lte", "value": hi}})
        elif rule["kind"] == "records" and rule["table"] == "events":
            where: list[dict[str, Any]] = []
            for w in rule["where"]:
                if w["field"] in ("start", "end"):
                    where += [{"field": w["field"], "op": "gte", "value": lo},
                              {"field": w["field"], "op": "lte", "value": hi}]
                else:
                    where.append(w)
            rule["where"] = where


def _latest_slot(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """The reference with the meeting booked at the last slot of the UTC window instead."""
    start, end = _times(spec)
    length = _utc(end) - _utc(start)
    new_end = _utc(_window(start[:10])[1])
    new_start = new_end - length
    if new_start <= _utc(start) + timedelta(minutes=30):
        raise CorpusError(f"{spec['capability']}: the expected slot is already the last of the day")
    ref = reference(spec)
    for turn in ref:
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["name"] in ("calendar_create_event", "calendar_update_event") and "start" in c["arguments"]:
                c["arguments"].update(start=new_start.strftime(_FMT), end=new_end.strftime(_FMT))
                return ref
    raise CorpusError(f"{spec['capability']}: the reference books no time")


def _defect(name: str, base: str, gets_away_with: str) -> Defect:
    return Defect(CLASS, name, base, gets_away_with, breaks=_loosen, witness=_latest_slot)


def _due_same_day(spec: Spec) -> None:
    """Each task's due time is pinned to its date only (the writer's 'due that day')."""
    found = False
    for c in spec["checks"]:
        if c["rule"]["kind"] == "records":
            for w in c["rule"]["where"]:
                if w["field"] == "due" and w.get("op", "equals") == "equals":
                    w["op"], w["value"], found = "matches", "^" + w["value"][:10], True
    if not found:
        raise CorpusError(f"{spec['capability']}: no due-date condition")


def _due_local_as_utc(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """The sender's local clock time written as UTC (the offset dropped)."""
    ref = reference(spec)
    for _, _, c in calls({"reference": ref, "capability": spec["capability"]}, "todo_add_task"):
        due = c["arguments"]["due"]
        if not due.endswith("Z"):
            c["arguments"]["due"] = due[:19] + "Z"
            return ref
    raise CorpusError(f"{spec['capability']}: every due time is already UTC")


DEFECTS = [
    _defect("dubai-vendor-sync", "synth:schedule_meeting_timezones@1",
            "books the meeting at 16:30 UTC, past the Dubai user's working day and hours after the earliest slot"),
    _defect("second-vendor-sync", "synth:schedule_meeting_timezones@3",
            "books the meeting at the end of the UTC day instead of the earliest slot inside everyone's hours"),
    _defect("review-moved-late", "synth:reschedule_conflict@1",
            "moves the meeting to the end of the UTC day instead of the first shared free slot"),
    _defect("review-moved-late-2", "synth:reschedule_conflict@2",
            "moves the meeting to the end of the UTC day instead of the first shared free slot"),
    _defect("roadmap-review-late", "example:meeting_reschedule",
            "moves the roadmap review to 16:00 UTC, 18:00 in Berlin, outside working hours"),
    Defect(CLASS, "todo-due-same-day", "synth:todo_track_mail_requests@1",
           "files a task due at the sender's local clock time read as UTC, hours off: only the date is checked",
           breaks=_due_same_day, witness=_due_local_as_utc),
]
