"""Date digits unpinned: a check reads a date-time the agent writes (a to-do's due, a meeting's start and end) by a
digit class over its year or its month, or without its year: `due matches ^\\d{4}-06-07T12:00:00Z$`, `start matches
^2026-\\d{2}-03T09:30:00Z$`, `due contains "-06-07T12:00:00Z"`; or reads its day and month either way round
(defects74): `due matches ^2026-(06-07|07-06)T12:00:00Z$`, `start matches ^2026-[01][13]-[01][13]T09:30:00Z$`. The
writer meant "any format of the right moment" (or "either order") or loosened a literal that failed once; the to-do
due a year late, the meeting booked a month out, the to-do due on 6 July for 7 June passes. An outside tester's
mutation sweep makes these by turning a digit of a pinned date into `\\d` (defects65 left them: the time near misses
move an hour, a quarter hour and a day, which each such check still fails). The sound twin pins the date-time whole
(the same `matches`, every digit written).
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import UTC, datetime, timedelta
from itertools import product
from typing import Any
from zoneinfo import ZoneInfo

from tests.defects._core import CorpusError, Defect, Spec, base_spec, check, reference

CLASS = "date_digits_unpinned"
DETECTION = (
    "near miss per written date-time: the write with the date-time a year later and a month later (every date-time "
    "argument of the call moved together) and with its day and month exchanged (a day of at most 12, not the month), "
    "made where a loose condition of a check (`matches`, `contains`) reads its "
    "date and holds for the moved one too; it must fail a check"
)
GATE, CODE = "mutations", "mutant_survived"


def _pattern(value: str, how: str) -> tuple[str, str]:
    """(op, value) of a condition reading the ISO date-time `value` loosely (`how`), or whole (`whole`)."""
    date, rest = value[:10], value[10:]
    year, month, day = date.split("-")
    if how == "noyear":
        return "contains", f"-{month}-{day}{rest}"
    if how == "spellings":  # the instant whole, in any of its ISO spellings: sound
        if not value.endswith(":00Z"):
            raise CorpusError(f"{value!r} is not a UTC date-time to the minute")
        return "matches", f"^{re.escape(value[:16])}(:00)?(Z|\\+00:00)$"
    if how.startswith("hours"):  # the clock's hour read by a class over the hour's digits in UTC and in the zone
        offset = int(how[len("hours"):])
        utc = datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
        hour, local = f"{utc.hour:02d}", f"{(utc.hour + offset) % 24:02d}"
        hours = "".join(a if a == b else f"[{min(a, b)}{max(a, b)}]" for a, b in zip(hour, local, strict=True))
        return "matches", f"^{re.escape(value[:11])}{hours}{re.escape(value[13:])}$"
    if how in ("either", "classes"):  # the date read either way round: an alternation, or a class over each digit
        both = f"({month}-{day}|{day}-{month})" if how == "either" else \
            "-".join(["".join(a if a == b else f"[{min(a, b)}{max(a, b)}]" for a, b in zip(month, day, strict=True))] * 2)
        return "matches", f"^{year}-{both}{re.escape(rest)}$"
    y = r"\d{4}" if how in ("year", "both") else year
    m = r"\d{2}" if how in ("month", "both") else month
    d = re.escape(rest)
    return "matches", f"^{y}-{m}-{day}{d}$" if how != "whole" else f"^{re.escape(value)}$"


def _class_date(moment: datetime) -> datetime:
    """The first date a class over each digit of the month and day in both orders admits beside the moment's own (17
    November's `1[17]-1[17]` admits 11 November), at the same clock time."""
    month, day = f"{moment.month:02d}", f"{moment.day:02d}"
    classes = [sorted({a, b}) for a, b in zip(month + day, day + month, strict=True)]
    for digits in product(*classes):
        m, d = int("".join(digits[:2])), int("".join(digits[2:]))
        if (m, d) != (moment.month, moment.day) and 1 <= m <= 12 and 1 <= d <= monthrange(moment.year, m)[1]:
            return moment.replace(month=m, day=d)
    raise CorpusError(f"no other date reads as {month}-{day} by its digits' classes")


def _later(moment: datetime, shift: str) -> datetime:
    if shift == "class":
        return _class_date(moment.astimezone(UTC)).astimezone(moment.tzinfo)
    if shift.startswith("hours"):  # the user's clock time booked as UTC
        return moment + timedelta(hours=int(shift[len("hours"):]))
    if shift == "swap":
        return moment.replace(month=moment.day, day=moment.month)
    if shift == "year":
        return moment.replace(year=moment.year + 1)
    return moment.replace(year=moment.year + (moment.month == 12), month=moment.month % 12 + 1)


def _moved(tool: str, check_id: str, field: str, shift: str) -> Any:
    """Witness: the write of `tool` naming the date-time the check `check_id` pins on `field`, with every date-time
    argument of it a year (or a month) later, or with its day and month exchanged (`swap`)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        pinned = _conditions(spec, check_id, (field,))[0]["value"]

        def named(moment: datetime) -> bool:  # the check pins it whole, or reads it in either order (a twin)
            if pinned.startswith("^"):
                return re.search(pinned, moment.astimezone(UTC).isoformat().replace("+00:00", "Z")) is not None
            return moment == datetime.fromisoformat(pinned.replace("Z", "+00:00"))

        ref = reference(spec)
        for turn in ref:
            for step in turn["steps"]:
                c = step.get("call") or {}
                args = c.get("arguments", {})
                stamps = {k: datetime.fromisoformat(v) for k, v in args.items() if c.get("name") == tool
                          and isinstance(v, str) and "T" in v and v[:4].isdigit()}
                if any(named(m) for m in stamps.values()):
                    for k, moment in stamps.items():
                        moved = _later(moment, shift)
                        args[k] = moved.astimezone(UTC).isoformat().replace("+00:00", "Z") \
                            if args[k].endswith("Z") else moved.isoformat()
                    return ref
        raise CorpusError(f"{spec['capability']}: no {tool} call at {pinned}")
    return witness


def _conditions(spec: Spec, check_id: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    rule = check(spec, check_id)["rule"]
    found = [rule] if rule["kind"] == "field" and rule["target"]["field"] in fields else \
        [w for w in rule.get("where", []) if w["field"] in fields]
    if not found:
        raise CorpusError(f"{spec['capability']}: {check_id} reads no {fields}")
    return found


def _read(how: str, *targets: tuple[str, tuple[str, ...]]) -> Any:
    """Each condition on `fields` of the checks `targets` (each pinning its date-time with `equals`) reads it as
    `how` says."""
    def edit(spec: Spec) -> None:
        for check_id, fields in targets:
            for w in _conditions(spec, check_id, fields):
                if w.get("op", "equals") != "equals":
                    raise CorpusError(f"{spec['capability']}: {check_id} does not pin {fields} with equals")
                w["op"], w["value"] = _pattern(w["value"], how)
    return edit


def _nth_task(seed: int, n: int) -> str:
    """The id of the `n`-th to-do check of todo_track_mail_requests@seed."""
    tasks = [c["id"] for c in base_spec(f"synth:todo_track_mail_requests@{seed}")["checks"]
             if c["id"].startswith("task-")]
    return tasks[n]


def _due_defect(seed: int, n: int, how: str, shift: str) -> Defect:
    check_id = _nth_task(seed, n)
    return Defect(CLASS, f"todo-due-{how}-{seed}", f"synth:todo_track_mail_requests@{seed}",
                  f"files the to-do due a {shift} late (the check reads the due date by "
                  f"{'no year' if how == 'noyear' else 'a digit class over its ' + how})",
                  breaks=_read(how, (check_id, ("due",))), fix=_read("whole", (check_id, ("due",))),
                  witness=_moved("todo_add_task", check_id, "due", shift), gate=GATE, code=CODE)


def _meeting_defect(name: str, base: str, tool: str, targets: tuple[tuple[str, tuple[str, ...]], ...], how: str,
                    shift: str, twin: str = "whole") -> Defect:
    """`twin` "either": the sound twin reads the date in either order (its day is past the 12th: no other date)."""
    return Defect(CLASS, name, base, f"books the meeting a {shift} out (the check reads its start and end by a digit "
                  f"class over the {how if how != 'both' else 'year and month'})",
                  breaks=_read(how, *targets), fix=_read(twin, *targets),
                  witness=_moved(tool, targets[0][0], "start", shift), gate=GATE, code=CODE)


_ORDERS = {"either": "an alternation of both orders", "classes": "a class over each digit of both orders"}


def _both(*edits: Any) -> Any:
    def edit(spec: Spec) -> None:
        for e in edits:
            e(spec)
    return edit


def _swapped_due(seed: int, n: int, how: str, either: int | None = None) -> Defect:
    """The `n`-th to-do's due read with its day and month either way round; the twin pins it whole and, where `either`
    names another to-do (one due on a day past the 12th: no date reads it the other way round), reads that one's due
    in either order, which is sound."""
    check_id = _nth_task(seed, n)
    fix = _read("whole", (check_id, ("due",)))
    if either is not None:
        fix = _both(fix, _read("either", (_nth_task(seed, either), ("due",))))
    return Defect(CLASS, f"todo-due-{how}-order-{seed}", f"synth:todo_track_mail_requests@{seed}",
                  f"files the to-do due on the date read the other way round (the check reads its day and month by "
                  f"{_ORDERS[how]})", breaks=_read(how, (check_id, ("due",))), fix=fix,
                  witness=_moved("todo_add_task", check_id, "due", "swap"), gate=GATE, code=CODE)


def _swapped_meeting(name: str, base: str, tool: str, targets: tuple[tuple[str, tuple[str, ...]], ...],
                     how: str) -> Defect:
    return Defect(CLASS, name, base, f"books the meeting on the date read the other way round (the check reads its "
                  f"start's and end's day and month by {_ORDERS[how]})", breaks=_read(how, *targets),
                  fix=_read("whole", *targets), witness=_moved(tool, targets[0][0], "start", "swap"), gate=GATE,
                  code=CODE)


def _classed_due(seed: int, n: int, twin: str = "whole") -> Defect:
    """`twin` "spellings": the sound twin reads the instant whole in any of its ISO spellings (`(:00)?(Z|+00:00)`)."""
    check_id = _nth_task(seed, n)
    return Defect(CLASS, f"todo-due-classes-day-{seed}", f"synth:todo_track_mail_requests@{seed}",
                  "files the to-do due on another date its digits' classes admit (11 November for 17 November)",
                  breaks=_read("classes", (check_id, ("due",))), fix=_read(twin, (check_id, ("due",))),
                  witness=_moved("todo_add_task", check_id, "due", "class"), gate=GATE, code=CODE)


def _classed_meeting(name: str, base: str, tool: str, targets: tuple[tuple[str, tuple[str, ...]], ...]) -> Defect:
    return Defect(CLASS, name, base, "moves the meeting to another date its digits' classes admit (the day is past "
                  "the 12th: no swap)", breaks=_read("classes", *targets), fix=_read("whole", *targets),
                  witness=_moved(tool, targets[0][0], "start", "class"), gate=GATE, code=CODE)


def _zone_offset(spec: Spec) -> int:
    """The whole hours of the booking's zone (its `timezone` argument) from UTC at the booked start."""
    for turn in spec["reference"]:
        for step in turn["steps"]:
            args = (step.get("call") or {}).get("arguments", {})
            if args.get("timezone") and args.get("start"):
                start = datetime.fromisoformat(args["start"].replace("Z", "+00:00"))
                offset = start.astimezone(ZoneInfo(args["timezone"])).utcoffset()
                if offset is not None and offset.total_seconds() % 3600 == 0 and offset.total_seconds():
                    return int(offset.total_seconds() // 3600)
    raise CorpusError(f"{spec['capability']}: no booking in a zone a whole number of hours off UTC")


def _zone_hours(seed: int, twin: str = "whole") -> Defect:
    base = f"synth:schedule_meeting_timezones@{seed}"
    hours = f"hours{_zone_offset(base_spec(base)):+d}"
    return Defect(CLASS, f"booking-zone-hours-{seed}", base, "books the meeting at the user's clock time read as "
                  "UTC (the check reads the start's and end's hour by a class over its digits in UTC and in the "
                  "user's zone)", breaks=_read(hours, *_BOOKED), fix=_read(twin, *_BOOKED),
                  witness=_moved("calendar_create_event", _BOOKED[0][0], "start", hours), gate=GATE, code=CODE)


_BOOKED = (("booked-earliest-slot", ("start", "end")),)
_MOVED = (("moved-to-free-slot", ("start",)), ("same-length", ("end",)))

DEFECTS = [
    _due_defect(1, 0, "year", "year"),
    _due_defect(2, 1, "month", "month"),
    _due_defect(3, 2, "both", "year"),
    _due_defect(4, 0, "noyear", "year"),
    _due_defect(5, 1, "year", "year"),
    _meeting_defect("booking-year-1", "synth:schedule_meeting_timezones@1", "calendar_create_event", _BOOKED,
                    "year", "year"),
    _meeting_defect("booking-month-2", "synth:schedule_meeting_timezones@2", "calendar_create_event", _BOOKED,
                    "month", "month"),
    _meeting_defect("moved-year-1", "synth:reschedule_conflict@1", "calendar_update_event", _MOVED, "year", "year"),
    _meeting_defect("moved-both-4", "synth:reschedule_conflict@4", "calendar_update_event", _MOVED, "both", "month"),
    _meeting_defect("review-moved-month", "example:meeting_reschedule", "calendar_update_event", _MOVED, "month",
                    "month"),
    # defects74: the day and month read either way round (an alternation, or a class over each digit): the to-do
    # due or the meeting on 6 July for 7 June passes.
    _swapped_due(1, 0, "either"),
    _swapped_due(2, 1, "classes"),
    _swapped_due(4, 0, "either"),
    _swapped_due(6, 0, "classes"),
    _swapped_due(7, 1, "either"),
    _swapped_due(12, 2, "either"),
    _swapped_due(29, 1, "either", either=0),
    _swapped_meeting("booking-classes-order-1", "synth:schedule_meeting_timezones@1", "calendar_create_event", _BOOKED,
                     "classes"),
    _swapped_meeting("booking-either-order-4", "synth:schedule_meeting_timezones@4", "calendar_create_event", _BOOKED,
                     "either"),
    _swapped_meeting("booking-either-order-6", "synth:schedule_meeting_timezones@6", "calendar_create_event", _BOOKED,
                     "either"),
    _swapped_meeting("booking-classes-order-8", "synth:schedule_meeting_timezones@8", "calendar_create_event", _BOOKED,
                     "classes"),
    _swapped_meeting("moved-either-order-4", "synth:reschedule_conflict@4", "calendar_update_event", _MOVED, "either"),
    _swapped_meeting("moved-classes-order-10", "synth:reschedule_conflict@10", "calendar_update_event", _MOVED,
                     "classes"),
    # defects75: a class over each digit where the day is past the 12th (no swap: 17 November's `1[17]-1[17]` admits 11
    # November), and the hour read by a class over its digits in UTC and in the user's zone (`[01][39]:30` for 09:30
    # UTC, 13:30 in Dubai: the meeting booked at the user's clock time as UTC passes).
    _classed_due(29, 0),
    _classed_due(8, 0, twin="spellings"),
    _classed_meeting("moved-classes-day-1", "synth:reschedule_conflict@1", "calendar_update_event", _MOVED),
    _zone_hours(1),
    _zone_hours(2, twin="spellings"),
    _zone_hours(3),
    _zone_hours(5, twin="spellings"),
    # Sound twins reading a date in either order where its day is past the 12th (18 June, 16 September).
    _meeting_defect("booking-year-3", "synth:schedule_meeting_timezones@3", "calendar_create_event", _BOOKED,
                    "year", "year", twin="either"),
    _meeting_defect("moved-month-1", "synth:reschedule_conflict@1", "calendar_update_event", _MOVED, "month",
                    "month", twin="either"),
]
