"""A Python check that parses a date-time and reads its day or clock at the offset it was written in.

`python_time_as_text`'s fix is to parse: `datetime.fromisoformat(text)`. But the parsed value keeps its offset, and
`.date()`, `.hour`, `.weekday()`, `.strftime("%A %H:%M")` read the day and clock at it:

- a call's argument parsed is at the offset the agent wrote: `_t(e['args']['start']).hour == 15` (the author's copy
  of the reference, written at the user's `+08:00`) fails the honest agent writing the same instant at a colleague's
  `-05:00` (the witness: the reference with the time so written), and a `strftime` of the day and clock fails it
  just the same;
- a stored time is UTC: `_t(r['due']).date() == date(2026, 9, 2)` reads the UTC day, and a task due in the first
  hours of the user's day (Helsinki, UTC+3) falls on the UTC day before; `s.hour == 10` on a stored start at the user's
  wall clock (Lisbon, UTC+1) never fires, nor `s.strftime('%A %H:%M') == 'Tuesday 10:30'`: the guard over the user's
  day or clock misses what it was written to catch.

Main reads no parsed time (`_python_times` takes `fromisoformat` for the sound form) and no probe respells a stored
time: main accepts every defect here. The twin converts first (`.astimezone(ZoneInfo(<the user's zone>))`); its
readings are the user's day and clock. The guards have no witness: the bases' frames and counts fail any extra
record or moved due on both sides, as for `python_time_as_text`'s guards."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from tests.defects._core import CorpusError, Defect, Spec
from tests.defects.python_time_as_text import _python, free_day_guard
from tests.defects.time_spelled_as_text import _clash, _moment, _ref_call, _user_zone, _written_west, free_local_day

CLASS = "python_time_read_in_utc"
DETECTION = (
    "statically, at the references gate: the Python check's code read, each parsed time (a call of "
    "fromisoformat/strptime/isoparse, of a function of the code returning one, a name bound to either) whose day or "
    "clock is read (.date(), .weekday(), .day, .hour, .time(), a strftime of a day or clock directive) with no "
    "astimezone between: named on a call's argument always (the agent's offset), on a stored value where the "
    "user's zone is known and off UTC on a known time's day and the field's seeds are stored UTC; reported "
    "`time_read_in_utc`"
)

_HEAD = ("from datetime import date, datetime\n"
         "from zoneinfo import ZoneInfo\n\n\n"
         "def _t(text):\n"
         "    return datetime.fromisoformat(str(text).replace('Z', '+00:00'))\n\n\n")


def _day_clock(moment: datetime, how: str) -> str:
    """The test of `t` (a parsed time) that it is at `moment`'s day and clock, as `moment` reads them."""
    if how == "strftime":
        return f"t.strftime('%d %b %H:%M') == {moment.strftime('%d %b %H:%M')!r}"
    if how == "weekday":
        return f"t.strftime('%A %H:%M') == {moment.strftime('%A %H:%M')!r}"
    return (f"t.date() == date({moment.year}, {moment.month}, {moment.day}) and t.hour == {moment.hour} "
            f"and t.minute == {moment.minute}")


def _slot_clock(tool: str, how: str, sound: bool):  # type: ignore[no-untyped-def]
    """A check that the agent's `tool` call wrote the reference's slot, reading the parsed argument's day and clock:
    at the offset the agent wrote it (the reference's copy, read at its own offset), or (the twin) both in the
    user's zone."""
    def edit(spec: Spec) -> None:
        want, zone = _ref_call(spec, tool)["start"], _user_zone(spec)
        moment = _moment(want).astimezone(ZoneInfo(zone)) if sound else _moment(want)
        parse = f"_t(e['args']['start']).astimezone(ZoneInfo({zone!r}))" if sound else "_t(e['args']['start'])"
        code = (_HEAD + "def check(state, audit, messages):\n"
                "    for e in audit:\n"
                f"        if e['ok'] and e['tool'] == {tool!r} and e['args'].get('start'):\n"
                f"            t = {parse}\n"
                f"            if {_day_clock(moment, how)}:\n"
                "                return True\n"
                "    return False\n")
        _python(spec, "slot-written", "the meeting's time written is the slot agreed", code)
    return edit


def _free_day(how: str, sound: bool):  # type: ignore[no-untyped-def]
    """A guard: no task due on the user's free day before the first deadline, the stored due parsed and its day read
    in UTC (`.date()` against a `date`, or a `strftime` of the day), or (the twin) in the user's zone."""
    def edit(spec: Spec) -> None:
        zone, day = free_local_day(spec)
        parse = f"_t(due).astimezone(ZoneInfo({str(zone)!r}))" if sound else "_t(due)"
        test = (f"{parse}.strftime('%d.%m.%Y') == {day.strftime('%d.%m.%Y')!r}" if how == "strftime"
                else f"{parse}.date() == date({day.year}, {day.month}, {day.day})")
        free_day_guard(spec, _HEAD, test)
    return edit


def _not_on_clash(how: str, sound: bool):  # type: ignore[no-untyped-def]
    """A guard: no confirmed event of the meeting starts at the clash, the stored start parsed and its day and clock
    read (at UTC) against the clash at the user's wall clock, or (the twin) read in the user's zone."""
    def edit(spec: Spec) -> None:
        title, start = _clash(spec)
        zone = _user_zone(spec)
        local = _moment(start).astimezone(ZoneInfo(zone))
        if not local.utcoffset():
            raise CorpusError(f"{spec['capability']}: the user's zone is at UTC on the clash's day")
        parse = f"_t(r['start']).astimezone(ZoneInfo({zone!r}))" if sound else "_t(r['start'])"
        code = (_HEAD + "def check(state, audit, messages):\n"
                "    for r in state['apps']['calendar']['events']:\n"
                f"        t = {parse}\n"
                f"        if {title!r} in r['title'] and r['status'] == 'confirmed' and {_day_clock(local, how)}:\n"
                "            return False\n"
                "    return True\n")
        _python(spec, "not-on-clash", "the meeting is not booked onto the clash", code, role="guard")
    return edit


_HONEST = ("an honest agent that writes the meeting's time at another offset (the same instant) fails the check: it "
           "reads the day and clock of the time parsed at the offset the agent wrote")


def _slot(name: str, base: str, tool: str, how: str) -> Defect:
    return Defect(CLASS, name, base, _HONEST, breaks=_slot_clock(tool, how, False), fix=_slot_clock(tool, how, True),
                  witness=_written_west(tool), witness_kind="honest", gate="references", code="time_read_in_utc")


def _guard(name: str, base: str, away: str, edit) -> Defect:  # type: ignore[no-untyped-def]
    return Defect(CLASS, name, base, away, breaks=edit(False), fix=edit(True), gate="references",
                  code="time_read_in_utc")


DEFECTS = [
    _slot("clock-written-schedule-2", "synth:schedule_meeting_timezones@2", "calendar_create_event", "date-hour"),
    _slot("strftime-moved-4", "synth:reschedule_conflict@4", "calendar_update_event", "strftime"),
    _guard("free-day-utc-date-2", "synth:todo_track_mail_requests@2",
           "adds a task due in the first hours of the user's free day: the guard reads the parsed due's date, the "
           "UTC day", lambda sound: _free_day("date", sound)),
    _guard("free-day-utc-strftime-3", "synth:todo_track_mail_requests@3",
           "adds a task due in the first hours of the user's free day: the guard formats the parsed due's day, the "
           "UTC day", lambda sound: _free_day("strftime", sound)),
    _guard("not-on-clash-utc-hour-2", "synth:adapt_announced_change@2",
           "books the meeting onto the clash: the guard reads the parsed stored start's hour, the UTC clock, against "
           "the clash at the user's clock", lambda sound: _not_on_clash("date-hour", sound)),
    _guard("not-on-clash-utc-weekday-5", "synth:adapt_announced_change@5",
           "books the meeting onto the clash: the guard reads the parsed stored start's weekday and clock "
           "(`strftime('%A %H:%M')`) in UTC against the clash at the user's", lambda sound: _not_on_clash("weekday", sound)),
]
