"""A Python check that compares a date-time as text: the declarative checks' `time_spelled_as_text` written in code.

An outside author who writes a check in Python compares the times as the strings they are: `e["args"]["start"] >=
"2026-11-03T08:00:00Z"`, `e["args"]["start"][:13] == "2026-11-03T09"`, `r["start"] == "2026-07-21T10:00:00+01:00"`
(the clash at the user's wall clock), `r["due"][:10] != "2026-09-25"` (the UTC day, not the user's), `lo <=
r["sent_at"] < hi` with the window at the user's offset. One instant has a spelling for every offset:

- a call's argument is what the agent wrote: the honest agent that writes the meeting's time at a colleague's offset
  (`-05:00`, the same instant) fails the check (the witness: the reference with the time so written), and a guard
  over the calls misses the forbidden call written east of UTC;
- a stored time is UTC (`YYYY-MM-DDTHH:MM:SSZ`): a guard comparing it with the user's wall clock never fires, one
  reading its first ten characters reads the UTC day, hours off the user's, and a window written at the user's offset
  sorts the stored times by their characters (the witness: the write done before the answer, which the twin refuses).

Main's declarative readers (`_textual_times`, `_time_spellings`, `_time_fragments`) read no code, and no Python probe
respells a time: main accepts every defect here. The sound twin is the same check comparing parsed instants
(`datetime.fromisoformat`)."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from tests.defects._core import CorpusError, Defect, Spec, base_spec, world
from tests.defects.python_argument_order import _condition
from tests.defects.time_bound_as_text import _early, _window
from tests.defects.time_spelled_as_text import (
    _clash,
    _moment,
    _ref_call,
    _task_dues,
    _user_zone,
    _written_west,
    _z,
    free_local_day,
)

CLASS = "python_time_as_text"
DETECTION = (
    "statically, at the references gate: the Python check's code read, each comparison (==, !=, order, in, "
    "startswith) of a value with a date-like string constant (in place or bound once to a name) judged as the "
    "condition it amounts to: on a value read from a call's arguments (audit `args`, through any names bound from "
    "it) always; on a stored value read whole where the constant is no text a stored time holds (another offset, no "
    "seconds, a bare day on a field of date-times); read in part (a prefix slice, startswith, `in`) where it reads "
    "the UTC day while the user lives off UTC or a clock the user's and no stored time has; reported "
    "`time_compared_as_text`"
)

_PARSE = ("from datetime import datetime\n\n\n"
          "def _t(text):\n"
          "    return datetime.fromisoformat(str(text).replace('Z', '+00:00'))\n\n\n")


def _python(spec: Spec, check_id: str, description: str, code: str, role: str | None = None) -> None:
    """Add (or, where `check_id` is a check already, replace) a Python check."""
    rule = {"kind": "python", "entrypoint": "check", "apps": [], "code": code}
    for c in spec["checks"]:
        if c["id"] == check_id:
            c["rule"] = rule
            return
    spec["checks"].append({"id": check_id, "description": description, "rule": rule,
                           **({"role": role} if role else {})})


# -- a call's argument compared as text (the honest agent writing the time at another offset fails) ---------------
_ARG_READS = {
    # how -> (the defect's test of `got`, the argument's text, against the reference's `want`; the twin's test)
    "after": ("got >= {lo!r}", "_t(got) >= _t({lo!r})"),
    "equal": ("got == {want!r}", "_t(got) == _t({want!r})"),
    "hour": ("got[:13] == {hour!r}", "_t(want) <= _t(got) < _t(want) + timedelta(hours=1)"),
    "startswith": ("got.startswith({minute!r})", "_t(got) == _t({want!r})"),
    "after-built": ("got >= {built}.isoformat()", "_t(got) >= {built}"),  # the bound built at run time
    "in-day": ("{day!r} in got", "_t(got).astimezone(timezone.utc).date() == _t({want!r}).astimezone(timezone.utc).date()"),
}


def _slot_read(tool: str, how: str, sound: bool):  # type: ignore[no-untyped-def]
    """A check that the agent's `tool` call wrote the reference's slot, reading the argument `start` by `how`."""
    def edit(spec: Spec) -> None:
        want = _ref_call(spec, tool)["start"]  # as the reference writes it, the author's copy
        early = _moment(want) - timedelta(hours=1)
        utc = early.astimezone(UTC)
        test = _ARG_READS[how][1 if sound else 0].format(
            lo=_z(early) if want.endswith("Z") else early.isoformat(), want=want, hour=want[:13], minute=want[:16], day=want[:10],
            built=f"datetime({utc.year}, {utc.month}, {utc.day}, {utc.hour}, {utc.minute}, tzinfo=timezone.utc)")
        code = ("from datetime import datetime, timedelta, timezone\n\n\n"
                "def _t(text):\n"
                "    return datetime.fromisoformat(str(text).replace('Z', '+00:00'))\n\n\n"
                "def check(state, audit, messages):\n"
                f"    want = {want!r}\n"
                "    for e in audit:\n"
                f"        if e['ok'] and e['tool'] == {tool!r} and e['args'].get('start'):\n"
                "            got = e['args']['start']\n"
                f"            if {test}:\n"
                "                return True\n"
                "    return False\n")
        _python(spec, "slot-written", "the meeting's time written is the slot agreed", code)
    return edit


_HONEST = ("an honest agent that writes the meeting's time at another offset (the same instant) fails the check: it "
           "compares the text the agent wrote")


def _arg(name: str, base: str, tool: str, how: str) -> Defect:
    return Defect(CLASS, name, base, _HONEST, breaks=_slot_read(tool, how, False), fix=_slot_read(tool, how, True),
                  witness=_written_west(tool), witness_kind="honest", gate="references", code="time_compared_as_text")


def _past_due_guard(sound: bool):  # type: ignore[no-untyped-def]
    """A guard over the calls: no task added due three days before the first deadline or earlier."""
    def edit(spec: Spec) -> None:
        bound = _z(min(_moment(t["due"]) for t in _task_dues(spec)) - timedelta(days=3))
        test = f"_t(due) <= _t({bound!r})" if sound else f"due <= {bound!r}"
        code = (_PARSE + "def check(state, audit, messages):\n"
                "    for e in audit:\n"
                "        due = e['args'].get('due') if e['tool'] == 'todo_add_task' else None\n"
                f"        if e['ok'] and due and {test}:\n"
                "            return False\n"
                "    return True\n")
        _python(spec, "no-past-due", "no task is added with a due time already past", code, role="guard")
    return edit


# -- a stored time compared with another spelling (a guard that never fires) --------------------------------------
def _not_on_clash(how: str, sound: bool):  # type: ignore[no-untyped-def]
    """A guard: no confirmed event of the meeting starts at the clash, the clash written at the user's wall clock
    and offset (`equal`), or read as the start's first 16 characters at the user's clock (`startswith`)."""
    def edit(spec: Spec) -> None:
        title, start = _clash(spec)
        local = _moment(start).astimezone(ZoneInfo(_user_zone(spec)))
        if local.utcoffset() == timedelta(0):
            raise CorpusError(f"{spec['capability']}: the user's zone is at UTC on the clash's day")
        if sound:
            test = f"_t(r['start']) == _t({local.isoformat()!r})"
        elif how == "equal":
            test = f"r['start'] == {local.isoformat()!r}"
        else:
            test = f"r['start'].startswith({local.strftime('%Y-%m-%dT%H:%M')!r})"
        code = (_PARSE + "def check(state, audit, messages):\n"
                "    for r in state['apps']['calendar']['events']:\n"
                f"        if {title!r} in r['title'] and r['status'] == 'confirmed' and {test}:\n"
                "            return False\n"
                "    return True\n")
        _python(spec, "not-on-clash", "the meeting is not booked onto the clash", code, role="guard")
    return edit


def _free_day(sound: bool, whole: bool = False):  # type: ignore[no-untyped-def]
    """A guard: no task due on the user's free day before the first deadline: the stored due's first ten characters
    (the UTC day), the whole due equal to the bare day where `whole` (which no stored date-time equals), or (the
    twin) the due read in the user's zone."""
    def edit(spec: Spec) -> None:
        zone, day = free_local_day(spec)
        test = (f"_t(due).astimezone(ZoneInfo({str(zone)!r})).date().isoformat() == {day.isoformat()!r}" if sound
                else f"due == {day.isoformat()!r}" if whole else f"due[:10] == {day.isoformat()!r}")
        free_day_guard(spec, "from zoneinfo import ZoneInfo\n" + _PARSE, test)
    return edit


def free_day_guard(spec: Spec, head: str, test: str) -> None:
    """Add the guard "no task due on the user's free day": no task whose `due` (a name of the check) meets `test`."""
    code = (head + "def check(state, audit, messages):\n"
            "    for r in state['apps']['todo']['tasks']:\n"
            "        due = r.get('due') or ''\n"
            f"        if due and {test}:\n"
            "            return False\n"
            "    return True\n")
    _python(spec, "nothing-due-free-day", "no task is due on the user's free day before the deadlines", code,
            role="guard")


def _back_on_clash(sound: bool):  # type: ignore[no-untyped-def]
    """A guard over the calls: the meeting is never moved back to its old (clashing) slot, the old start compared
    with what the agent wrote (as text), or (the twin) parsed."""
    def edit(spec: Spec) -> None:
        moved = _ref_call(spec, "calendar_update_event")
        old = next(e for e in world(spec, "calendar", "events") if e["id"] == moved["event_id"])["start"]
        test = f"_t(start) == _t({old!r})" if sound else f"start == {old!r}"
        code = (_PARSE + "def check(state, audit, messages):\n"
                "    for e in audit:\n"
                f"        if e['ok'] and e['tool'] == 'calendar_update_event' and e['args'].get('event_id') == "
                f"{moved['event_id']!r}:\n"
                "            start = e['args'].get('start')\n"
                f"            if start and {test}:\n"
                "                return False\n"
                "    return True\n")
        _python(spec, "never-back-on-clash", "the meeting is never moved back to its clashing slot", code,
                role="guard")
    return edit


def _local_window(check_id: str, sound: bool):  # type: ignore[no-untyped-def]
    """The window guard `check_id` (count 0 of records inside [lo, hi)) as a Python check, its bounds at the user's
    wall clock and offset: compared as text with the stored UTC times, or (the twin) parsed."""
    def edit(spec: Spec) -> None:
        rule = _window(spec, check_id)["rule"]
        zone = ZoneInfo(_user_zone(spec))
        bounds = {w["op"]: w for w in rule["where"] if w.get("op") in ("gte", "lt")}
        field = bounds["gte"]["field"]
        lo, hi = (_moment(bounds[op]["value"]).astimezone(zone).isoformat() for op in ("gte", "lt"))
        if lo.endswith("+00:00"):
            raise CorpusError(f"{spec['capability']}: the user's zone is at UTC")
        tests = [_condition(w) for w in rule["where"] if w.get("op") not in ("gte", "lt")]
        inside = f"_t({lo!r}) <= _t(r[{field!r}]) < _t({hi!r})" if sound else f"{lo!r} <= r[{field!r}] < {hi!r}"
        code = ("import re\n" + _PARSE + "def check(state, audit, messages):\n"
                f"    for r in state['apps'][{rule['app']!r}][{rule['table']!r}]:\n"
                f"        if r.get({field!r}) and {' and '.join([*tests, inside])}:\n"
                "            return False\n"
                "    return True\n")
        _python(spec, check_id, "", code)
    return edit


def _early_in(base: str, check_id: str):  # type: ignore[no-untyped-def]
    """`_early` found on the shipped spec (its window guard declarative, as the twin's Python check reads it)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        return _early(check_id)(base_spec(base))  # type: ignore[no-any-return]
    return witness


_EARLY = ("acts before the answer came: the guard's window is written at the user's offset and compared as text "
          "with the stored UTC times, so the early write sorts outside it")

DEFECTS = [
    _arg("after-bound-schedule-2", "synth:schedule_meeting_timezones@2", "calendar_create_event", "after"),
    _arg("startswith-schedule-3", "synth:schedule_meeting_timezones@3", "calendar_create_event", "startswith"),
    _arg("hour-moved-1", "synth:reschedule_conflict@1", "calendar_update_event", "hour"),
    _arg("equal-moved-4", "synth:reschedule_conflict@4", "calendar_update_event", "equal"),
    _arg("startswith-moved-23", "synth:reschedule_conflict@23", "calendar_update_event", "startswith"),
    _arg("after-bound-example", "example:meeting_reschedule", "calendar_update_event", "after"),
    _arg("hour-moved-adapt-14", "synth:adapt_announced_change@14", "calendar_update_event", "hour"),
    Defect(CLASS, "forbidden-past-due-1", "synth:todo_track_mail_requests@1",
           "adds a task due days ago written in an offset east of UTC: the guard compares the text the agent wrote "
           "and misses it", breaks=_past_due_guard(False), fix=_past_due_guard(True), gate="references",
           code="time_compared_as_text"),
    Defect(CLASS, "not-on-clash-local-2", "synth:adapt_announced_change@2",
           "books the meeting onto the clash: the guard compares the stored (UTC) start with the clash at the "
           "user's offset, which no stored time equals", breaks=_not_on_clash("equal", False),
           fix=_not_on_clash("equal", True), gate="references", code="time_compared_as_text"),
    Defect(CLASS, "not-on-clash-clock-5", "synth:adapt_announced_change@5",
           "books the meeting onto the clash: the guard reads the stored (UTC) start's day and clock at the user's "
           "clock", breaks=_not_on_clash("startswith", False), fix=_not_on_clash("startswith", True),
           gate="references", code="time_compared_as_text"),
    Defect(CLASS, "free-day-utc-prefix-2", "synth:todo_track_mail_requests@2",
           "adds a task due in the first hours of the user's free day: the guard reads the stored due's first ten "
           "characters, the UTC day", breaks=_free_day(False), fix=_free_day(True),
           gate="references", code="time_compared_as_text"),
    Defect(CLASS, "free-day-bare-equal-3", "synth:todo_track_mail_requests@3",
           "adds a task due on the user's free day: the guard compares the stored due (a date-time) with a bare day, "
           "which no stored time equals", breaks=_free_day(False, whole=True), fix=_free_day(True),
           gate="references", code="time_compared_as_text"),
    Defect(CLASS, "forbidden-back-on-clash-3", "synth:reschedule_conflict@3",
           "moves the meeting back onto its old slot writing its start at another offset: the guard compares the "
           "text the agent wrote and misses it", breaks=_back_on_clash(False), fix=_back_on_clash(True),
           gate="references", code="time_compared_as_text"),
    Defect(CLASS, "told-window-local-1", "synth:access_request_approval@1", _EARLY,
           breaks=_local_window("told-after-answer", False), fix=_local_window("told-after-answer", True),
           witness=_early_in("synth:access_request_approval@1", "told-after-answer"), gate="references",
           code="time_compared_as_text"),
    Defect(CLASS, "told-window-local-2", "synth:access_request_approval@2", _EARLY,
           breaks=_local_window("told-after-answer", False), fix=_local_window("told-after-answer", True),
           witness=_early_in("synth:access_request_approval@2", "told-after-answer"), gate="references",
           code="time_compared_as_text"),
]


# -- the constant built at run time (defects153): `f"{DAY:%Y-%m-%d}"` (and `_ARG_READS`'s after-built) ------------
def _free_day_built(spec: Spec) -> None:
    """The free-day guard with the day built at run time (`DAY = date(...)`, `due[:10] == f"{DAY:%Y-%m-%d}"`): the
    stored due's first ten characters, the UTC day."""
    _zone, day = free_local_day(spec)
    free_day_guard(spec, f"from datetime import date\n\n\nDAY = date({day.year}, {day.month}, {day.day})\n\n\n",
                   "due[:10] == f'{DAY:%Y-%m-%d}'")


DEFECTS += [
    _arg("after-bound-built-schedule-8", "synth:schedule_meeting_timezones@8", "calendar_create_event", "after-built"),
    Defect(CLASS, "free-day-built-prefix-4", "synth:todo_track_mail_requests@4",
           "adds a task due in the first hours of the user's free day: the guard reads the stored due's first ten "
           "characters against the day built at run time, the UTC day", breaks=_free_day_built, fix=_free_day(True),
           gate="references", code="time_compared_as_text"),
]
