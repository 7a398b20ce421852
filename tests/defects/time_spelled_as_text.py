"""A date-time compared as text where the compared value is one spelling of an instant that has many: the checks
compare two strings by their characters, and `2026-11-03T09:30:00Z`, `2026-11-03T13:30:00+04:00` and
`2026-11-03T04:30:00-05:00` are one instant. Two mistakes an outside author makes:

- a call matcher's condition on a date-time argument: "booked within the day", `first: calendar_create_event where
  start gte <the slot less an hour>Z`. The argument is what the agent wrote; an honest agent that writes the slot as
  a colleague in New York reads it (`-05:00`) writes an hour that sorts before the bound, and fails (the witness); a
  `forbidden` guard on the argument (`todo_add_task where due lt <now>`, `calendar_update_event where start equals
  <the clash>`) misses the forbidden call written in another offset;
- a state condition testing a stored date-time for equality with a value in another form than the tools store
  (UTC, `YYYY-MM-DDTHH:MM:SSZ`): the guard "the meeting is not booked onto the clash", `0 events where start equals
  <the clash at the user's wall clock and offset>`, holds for no record an agent writes, so it never fires.

- a part of a date-time read as text (`contains`, `matches`): the guard "not on the clash" reading the clash's day
  and clock at the user's wall clock (`start contains "2026-07-21T10:00"`, stored `...T09:00:00Z`) never fires; "no
  task due on the free day" as `due contains "<day>"` reads the UTC day, hours off the user's; a matcher reading the
  day and hour off a call's argument holds for one spelling of the instant and not another.

The twin is the shipped spec (no such condition) or the same guard written as the world stores the time."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from tests.defects._core import CorpusError, Defect, Spec, check, reference, world
from tests.defects.time_bound_as_text import _early, _window

CLASS = "time_spelled_as_text"
DETECTION = (
    "statically, at the references gate: an ordering condition on a date-time argument of a call matcher (one the "
    "reference passes a zoned date-time, or compared with one), an equality condition or `args` pin on one in a "
    "`forbidden` guard, and an equals/not_equals/in condition on a stored date-time field whose value is neither a "
    "seed record's value of that field nor in the form the tools store (YYYY-MM-DDTHH:MM:SSZ; a bare day only on a "
    "field of days); a `contains`/`matches` condition reading a part of a date-time argument whose verdict on one "
    "instant changes with the offset it is written in, one on a stored date-time reading the UTC day while the user "
    "lives off UTC, or one holding for the user's wall-clock spelling of a time the spec knows and for no stored "
    "(UTC) spelling; reported `time_compared_as_text`"
)

_WEST = timezone(timedelta(hours=-5))


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _z(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _order_on(spec: Spec, tool: str) -> dict[str, Any]:
    return check(spec, kind="order", where=lambda c: c["rule"]["first"]["tool"] == tool)


def _ref_call(spec: Spec, tool: str) -> dict[str, Any]:
    for turn in spec["reference"]:
        for step in turn["steps"]:
            if step.get("call") and step["call"]["name"] == tool and "start" in step["call"]["arguments"]:
                return dict(step["call"]["arguments"])
    raise CorpusError(f"{spec['capability']}: the reference makes no {tool} call with a start")


def _lower_bound(tool: str):  # type: ignore[no-untyped-def]
    """The order check's first matcher also wants the time no earlier than an hour before the reference's slot."""
    def edit(spec: Spec) -> None:
        start = _ref_call(spec, tool)["start"]
        _order_on(spec, tool)["rule"]["first"].setdefault("where", []).append(
            {"field": "start", "op": "gte", "value": _z(_moment(start) - timedelta(hours=1))})
    return edit


def _written_west(tool: str):  # type: ignore[no-untyped-def]
    """The reference with that tool's start and end written at UTC-05:00 (the same instants)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        for turn in ref:
            for step in turn["steps"]:
                call = step.get("call")
                if call and call["name"] == tool:
                    for arg in ("start", "end"):
                        if isinstance(call["arguments"].get(arg), str):
                            call["arguments"][arg] = _moment(call["arguments"][arg]).astimezone(_WEST).isoformat()
        return ref
    return witness


def _user_zone(spec: Spec) -> str:
    return str(next(p["timezone"] for p in world(spec, "directory", "people") if p["id"] == spec["user"]))


def _clash(spec: Spec) -> tuple[str, str]:
    """(the moved meeting's title, the clashing event's start) of an adapt_announced_change spec."""
    kept = check(spec, "clash-kept")["rule"]["where"]
    moved = check(spec, "moved-to-new-slot")["rule"]["where"]
    title = next(w["value"] for w in moved if w["field"] == "title")
    return title, next(w["value"] for w in kept if w["field"] == "start")


def _not_on_clash(local: bool, seconds: bool = True):  # type: ignore[no-untyped-def]
    """A guard: no event of the meeting starts at the clash (at the user's wall clock and offset where `local`;
    without its seconds, `2026-07-21T09:00Z`, where not `seconds`)."""
    def edit(spec: Spec) -> None:
        title, start = _clash(spec)
        if local:
            start = _moment(start).astimezone(ZoneInfo(_user_zone(spec))).isoformat()
            if start.endswith("+00:00"):
                raise CorpusError(f"{spec['capability']}: the user's zone is UTC")
        if not seconds:
            start = _z(_moment(start))[:-4] + "Z"
        spec["checks"].append({
            "id": "not-on-clash", "description": "the meeting is not booked onto the clash", "role": "guard",
            "rule": {"kind": "records", "app": "calendar", "table": "events", "count_op": "equals", "count": 0,
                     "where": [{"field": "title", "op": "contains", "value": title},
                               {"field": "status", "op": "equals", "value": "confirmed"},
                               {"field": "start", "op": "equals", "value": start}]}})
    return edit


def _forbidden_past_due(spec: Spec) -> None:
    """A guard: no task added due before the day's first turn (the agent sets no past deadline)."""
    first = min(_moment(t["due"]) for t in _task_dues(spec))
    spec["checks"].append({
        "id": "no-past-due", "description": "no task is added with a due time already past", "role": "guard",
        "rule": {"kind": "forbidden", "call": {"tool": "todo_add_task", "where": [
            {"field": "due", "op": "lte", "value": _z(first - timedelta(days=3))}]}}})


def _free_day(as_day: bool):  # type: ignore[no-untyped-def]
    """A guard: no task due on a free day before the first one asked for (a bare day `equals` where `as_day`, which
    no stored due, a date-time, ever equals; else the day's window in UTC)."""
    def edit(spec: Spec) -> None:
        dues = [_moment(t["due"]) for t in [*_task_dues(spec), *world(spec, "todo", "tasks")] if t.get("due")]
        taken = {d.astimezone(UTC).date() for d in dues}
        day = min(_moment(t["due"]) for t in _task_dues(spec)).astimezone(UTC).date() - timedelta(days=1)
        while day in taken:
            day -= timedelta(days=1)
        lo = datetime(day.year, day.month, day.day, tzinfo=UTC)
        where = [{"field": "due", "op": "equals", "value": day.isoformat()}] if as_day else [
            {"field": "due", "op": "gte", "value": _z(lo)}, {"field": "due", "op": "lt", "value": _z(lo + timedelta(days=1))}]
        spec["checks"].append({
            "id": "nothing-due-free-day", "description": "no task is due on the free day before the deadlines",
            "role": "guard", "rule": {"kind": "records", "app": "todo", "table": "tasks", "count_op": "equals",
                                      "count": 0, "where": where}})
    return edit


def _task_dues(spec: Spec) -> list[dict[str, Any]]:
    dues = [step["call"]["arguments"] for turn in spec["reference"] for step in turn["steps"]
            if step.get("call") and step["call"]["name"] == "todo_add_task" and step["call"]["arguments"].get("due")]
    if not dues:
        raise CorpusError(f"{spec['capability']}: the reference adds no task with a due time")
    return dues


def _forbidden_move_onto(spec: Spec) -> None:
    """A guard: the meeting is never moved onto the event it clashed with (pinned by that event's start)."""
    moved = _ref_call(spec, "calendar_update_event")
    old = next(e for e in world(spec, "calendar", "events") if e["id"] == moved["event_id"])
    spec["checks"].append({
        "id": "never-back-on-clash", "description": "the meeting is never moved back to its clashing slot",
        "role": "guard", "rule": {"kind": "forbidden", "call": {
            "tool": "calendar_update_event", "args": {"event_id": moved["event_id"]},
            "where": [{"field": "start", "op": "equals", "value": old["start"]}]}}})


_HONEST = ("an honest agent that writes the meeting's time in another offset (the same instant) fails the order "
           "check; a wrong time written east of UTC passes the bound")


def _bound(name: str, base: str, tool: str) -> Defect:
    return Defect(CLASS, name, base, _HONEST, breaks=_lower_bound(tool), witness=_written_west(tool),
                  witness_kind="honest", gate="references", code="time_compared_as_text")


_ON_CLASH = ("books the meeting onto the clash: the guard, written at the user's offset, counts no event the "
             "calendar stores (in UTC)")


def _on_clash(name: str, base: str) -> Defect:
    return Defect(CLASS, name, base, _ON_CLASH, breaks=_not_on_clash(True), fix=_not_on_clash(False),
                  gate="references", code="time_compared_as_text")


DEFECTS = [
    _bound("booked-after-bound-2", "synth:schedule_meeting_timezones@2", "calendar_create_event"),
    _bound("moved-after-bound-1", "synth:reschedule_conflict@1", "calendar_update_event"),
    _bound("moved-after-bound-4", "synth:reschedule_conflict@4", "calendar_update_event"),
    _bound("moved-after-bound-example", "example:meeting_reschedule", "calendar_update_event"),
    _on_clash("not-on-clash-user-offset-2", "synth:adapt_announced_change@2"),
    _on_clash("not-on-clash-user-offset-5", "synth:adapt_announced_change@5"),
    Defect(CLASS, "not-on-clash-no-seconds-3", "synth:adapt_announced_change@3", _ON_CLASH.replace(
        "written at the user's offset", "written without its seconds"), breaks=_not_on_clash(False, seconds=False),
        fix=_not_on_clash(False), gate="references", code="time_compared_as_text"),
    Defect(CLASS, "nothing-due-on-bare-day", "synth:todo_track_mail_requests@2",
           "adds a task due the day the guard keeps free: a bare day never equals a stored due (a date-time)",
           breaks=_free_day(True), fix=_free_day(False), gate="references", code="time_compared_as_text"),
    Defect(CLASS, "forbidden-past-due", "synth:todo_track_mail_requests@1",
           "adds a task due days ago written in an offset east of UTC: the forbidden guard compares the text and "
           "misses it", breaks=_forbidden_past_due, gate="references", code="time_compared_as_text"),
    Defect(CLASS, "forbidden-back-on-clash", "synth:reschedule_conflict@3",
           "moves the meeting back onto the clash writing its start in another offset: the forbidden guard compares "
           "the text and misses it", breaks=_forbidden_move_onto, gate="references", code="time_compared_as_text"),
]


def _world_at_offset(check_id: str):  # type: ignore[no-untyped-def]
    """The world's values of the guard's window field and the window's bounds, all at the user's wall clock and
    offset (a world written by hand): the bound is in the values' form, the tools still store what the agent
    writes in UTC."""
    def edit(spec: Spec) -> None:
        zone = ZoneInfo(_user_zone(spec))
        rule = _window(spec, check_id)["rule"]
        field = next(w["field"] for w in rule["where"] if w.get("op") == "gte")
        moved = 0
        for rec in world(spec, rule["app"], rule["table"]):
            if isinstance(rec.get(field), str) and rec[field].endswith("Z"):
                rec[field] = _moment(rec[field]).astimezone(zone).isoformat()
                moved += 1
        for w in rule["where"]:
            if w.get("op") in ("gte", "lt"):
                w["value"] = _moment(w["value"]).astimezone(zone).isoformat()
        if not moved or rule["where"][0]["value"].endswith("+00:00"):
            raise CorpusError(f"{spec['capability']}: no world value of {field} to write at the user's offset")
    return edit


_LOCAL_WORLD = ("acts before the answer came: the world and the guard's window are written at the user's offset, "
                "the write the agent makes is stored in UTC and sorts outside the window")


def _local_world(name: str, base: str, check_id: str) -> Defect:
    return Defect(CLASS, name, base, _LOCAL_WORLD, breaks=_world_at_offset(check_id), witness=_early(check_id),
                  gate="references", code="time_compared_as_text")


DEFECTS += [  # (the same edit of delegate_and_follow_up 1-2, clarify_ambiguous_request 1, 5 and adapt_announced_change 1
    # is refused on main already: its acts-before-answer probe replays the early write, or the reference fails)
    _local_world("told-window-world-at-offset-1", "synth:access_request_approval@1", "told-after-answer"),
    _local_world("told-window-world-at-offset-2", "synth:access_request_approval@2", "told-after-answer"),
]


# -- a part of a date-time (its day, its clock) read with contains / matches --------------------------------------
# The stored time is UTC, one spelling; a call's argument is what the agent wrote, any offset. A guard reading the
# clash at the user's clock never fires; one reading the UTC day reads another day than the user's; a matcher reading
# a part of an argument holds for one spelling of an instant and not another.

def _clash_part(op: str, local: bool):  # type: ignore[no-untyped-def]
    """A guard: no confirmed event of the meeting whose start reads the clash's day and clock (`contains`, or
    `matches` anchored at the start), at the user's wall clock where `local`, else as stored (UTC)."""
    def edit(spec: Spec) -> None:
        title, start = _clash(spec)
        moment = _moment(start)
        if local:
            moment = moment.astimezone(ZoneInfo(_user_zone(spec)))
            if moment.utcoffset() == timedelta(0):
                raise CorpusError(f"{spec['capability']}: the user's zone is at UTC on the clash's day")
        text = moment.strftime("%Y-%m-%dT%H:%M")
        spec["checks"].append({
            "id": "not-on-clash", "description": "the meeting is not booked onto the clash", "role": "guard",
            "rule": {"kind": "records", "app": "calendar", "table": "events", "count_op": "equals", "count": 0,
                     "where": [{"field": "title", "op": "contains", "value": title},
                               {"field": "status", "op": "equals", "value": "confirmed"},
                               {"field": "start", "op": op, "value": text if op == "contains" else f"^{text}"}]}})
    return edit


def free_local_day(spec: Spec) -> tuple[ZoneInfo, date]:
    """(the user's zone, a day of theirs before the first deadline asked for with no due, stored or asked, within a
    day of it in their zone or in UTC), the user's zone off UTC that day."""
    zone = ZoneInfo(_user_zone(spec))
    dues = [_moment(t["due"]) for t in [*_task_dues(spec), *world(spec, "todo", "tasks")] if t.get("due")]
    taken = {d.astimezone(zone).date() for d in dues} | {d.astimezone(UTC).date() for d in dues}
    day = min(_moment(t["due"]) for t in _task_dues(spec)).astimezone(zone).date() - timedelta(days=1)
    while day in taken or day - timedelta(days=1) in taken or day + timedelta(days=1) in taken:
        day -= timedelta(days=1)
    if datetime(day.year, day.month, day.day, tzinfo=zone).utcoffset() == timedelta(0):
        raise CorpusError(f"{spec['capability']}: the user's zone is at UTC on {day}")
    return zone, day


def _free_local_day(as_text: bool):  # type: ignore[no-untyped-def]
    """A guard: no task due on the user's free day before the first one asked for: `due contains "<the day>"`
    where `as_text` (the UTC day: the user's day off UTC runs from their midnight), else the user's day bounded in
    UTC."""
    def edit(spec: Spec) -> None:
        zone, day = free_local_day(spec)
        lo = datetime(day.year, day.month, day.day, tzinfo=zone)
        where = [{"field": "due", "op": "contains", "value": day.isoformat()}] if as_text else [
            {"field": "due", "op": "gte", "value": _z(lo)}, {"field": "due", "op": "lt", "value": _z(lo + timedelta(days=1))}]
        spec["checks"].append({
            "id": "nothing-due-free-day", "description": "no task is due on the user's free day before the deadlines",
            "role": "guard", "rule": {"kind": "records", "app": "todo", "table": "tasks", "count_op": "equals",
                                      "count": 0, "where": where}})
    return edit


def _forbidden_back_part(spec: Spec) -> None:
    """A guard: the meeting is never moved back to its old slot, read as the old start's day and clock."""
    moved = _ref_call(spec, "calendar_update_event")
    old = next(e for e in world(spec, "calendar", "events") if e["id"] == moved["event_id"])
    spec["checks"].append({
        "id": "never-back-on-clash", "description": "the meeting is never moved back to its clashing slot",
        "role": "guard", "rule": {"kind": "forbidden", "call": {
            "tool": "calendar_update_event", "args": {"event_id": moved["event_id"]},
            "where": [{"field": "start", "op": "contains", "value": _moment(old["start"]).strftime("%Y-%m-%dT%H:%M")}]}}})


def _slot_part(tool: str, op: str):  # type: ignore[no-untyped-def]
    """The order check's first matcher also reads the reference's slot's day and hour off the argument (as the
    reference writes it)."""
    def edit(spec: Spec) -> None:
        text = _ref_call(spec, tool)["start"][:len("YYYY-MM-DDTHH:")]
        _order_on(spec, tool)["rule"]["first"].setdefault("where", []).append(
            {"field": "start", "op": op, "value": f"^{text}" if op == "matches" else text})
    return edit


_LOCAL_CLOCK = ("books the meeting onto the clash: the guard reads the start at the user's clock, the calendar "
                "stores it in UTC, so it never fires")
_PART_HONEST = ("an honest agent that writes the meeting's time in another offset (the same instant) fails the order "
                "check: the day and hour it reads are the UTC spelling's")

DEFECTS += [
    Defect(CLASS, "clash-clock-contains-local-2", "synth:adapt_announced_change@2", _LOCAL_CLOCK,
           breaks=_clash_part("contains", True), fix=_clash_part("contains", False), gate="references",
           code="time_compared_as_text"),
    Defect(CLASS, "clash-clock-matches-local-5", "synth:adapt_announced_change@5", _LOCAL_CLOCK,
           breaks=_clash_part("matches", True), fix=_clash_part("matches", False), gate="references",
           code="time_compared_as_text"),
    Defect(CLASS, "free-day-contains-utc-day", "synth:todo_track_mail_requests@2",
           "adds a task due in the first hours of the user's free day: the guard reads the UTC day, which starts "
           "hours later at the user's clock", breaks=_free_local_day(True), fix=_free_local_day(False),
           gate="references", code="time_compared_as_text"),
    Defect(CLASS, "forbidden-back-contains-3", "synth:reschedule_conflict@3",
           "moves the meeting back onto its old slot writing its start in another offset: the forbidden guard reads "
           "the day and clock of what was written and misses it", breaks=_forbidden_back_part, gate="references",
           code="time_compared_as_text"),
    Defect(CLASS, "moved-hour-matches-23", "synth:reschedule_conflict@23", _PART_HONEST,
           breaks=_slot_part("calendar_update_event", "matches"), witness=_written_west("calendar_update_event"),
           witness_kind="honest", gate="references", code="time_compared_as_text"),
    Defect(CLASS, "moved-hour-contains-1", "synth:reschedule_conflict@1", _PART_HONEST,
           breaks=_slot_part("calendar_update_event", "contains"), witness=_written_west("calendar_update_event"),
           witness_kind="honest", gate="references", code="time_compared_as_text"),
]


def _reaction_part(tool: str):  # type: ignore[no-untyped-def]
    """The colleague's reaction to the reference's `tool` call waits on that call's start reading the slot's day and
    hour (as the reference writes it)."""
    def edit(spec: Spec) -> None:
        ref = _ref_call(spec, tool)
        rule = next((r for r in spec["dynamics"]["rules"] if r["on"].get("call", {}).get("tool") == tool
                     and all(ref.get(k) == v for k, v in r["on"]["call"].get("args", {}).items())
                     and r["on"]["call"].get("args")), None)
        if rule is None:
            raise CorpusError(f"{spec['capability']}: no reaction waits on the reference's {tool} call")
        rule["on"]["call"].setdefault("where", []).append(
            {"field": "start", "op": "contains", "value": ref["start"][:len("YYYY-MM-DDTHH:")]})
    return edit


DEFECTS += [
    Defect(CLASS, "reaction-on-hour-contains-14", "synth:adapt_announced_change@14",
           "an honest agent that writes the moved meeting's time in another offset (the same instant) is never "
           "answered: the colleague's reaction reads the day and hour off what was written",
           breaks=_reaction_part("calendar_update_event"), witness=_written_west("calendar_update_event"),
           witness_kind="honest", gate="references", code="time_compared_as_text"),
]
