"""A time the agent tells read by a class: a check on the time of day an answer or a message states (the meeting's
new time, the slot picked, the time a colleague is told) whose pattern reads the hour by a class or an alternation of
digits (`1[23]:30` for 13:30, `0[89]:30 UTC` for 09:30 UTC, `(10|12|15):00` for 10:00 here and 15:00 UTC), so a time
an hour or more off passes beside the right one. The digit-class near misses of defects75 moved a digit of a prose
clock time one up only: a class of the digit and the one below it, or an alternation that lists another hour, was
left to "the zone readings", which never named which other clock is the same instant.

The sound twins list the same instant in two zones (`(13|09):30` for 13:30 Dubai, 09:30 UTC) or the time as stated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, reference, with_say

CLASS = "clock_class_read"
DETECTION = (
    "for each clock time of an answer or a message that a check's pattern reads by a class or an alternation, "
    "every digit the pattern admits in its place is tried; a clock that is a time of day and names another instant "
    "than the stated one (not the same instant in a zone of the spec, nor on a 12-hour clock) is a wrong time: a near "
    "miss stating it that passes every check means the check reads the time loosely"
)
GATE, CODE = "mutations", "content_unchecked"
_CLOCK = re.compile(r"(?<!\d)(\d\d):(\d\d)(?!\d)")
_ISO_PAIR = re.compile(r"at \S+T(\d\d:\d\d):00[+-]\d\d:\d\d \(\S+T(\d\d:\d\d):00Z\)")


def _twelve_hour(spec: Spec) -> None:
    """The answer's local time on a 12-hour clock (`for 1:30 pm your time (09:30 in UTC)`), read with the title by
    `[13]:30 ?pm`: a class of the hour that admits 3:30 pm."""
    local, _ = _prose(spec)
    hour = int(local[:2])
    if hour <= 12:
        raise CorpusError(f"{spec['capability']}: the slot {local} is not in the afternoon")
    said = _answer(spec)
    with_say(spec, said.replace(f"for {local} ", f"for {hour - 12}:{local[3:]} pm "), 0, spec["reference"])
    _told_time(lambda _l, _u: rf"\b[{hour - 12}{(hour - 10) % 10}]:{local[3:]} ?pm\b")(spec)


def _twelve_hour_fixed(spec: Spec) -> None:
    local, utc = _prose(spec)
    hour = int(local[:2])
    with_say(spec, _answer(spec).replace(f"for {local} ", f"for {hour - 12}:{local[3:]} pm "), 0, spec["reference"])
    _told_time(lambda _l, _u: rf"\b(?:{hour - 12}:{local[3:]} ?pm|{local}|{utc})\b")(spec)


def _answer(spec: Spec) -> str:
    return [s["say"] for s in spec["reference"][0]["steps"] if s.get("say")][-1]  # type: ignore[no-any-return]


def _below(clock: str, down: int = 1) -> str:
    """The clock with its hour's last digit `down` lower (`09:30` -> `08:30`, `10:00` -> `19:00`): what a class of
    that digit and the one below admits, where the one above (the old near miss) is not admitted. Another `down`
    where the one below is the same instant in a zone of the spec (a check may accept that)."""
    return f"{clock[0]}{(int(clock[1]) - down) % 10}{clock[2:]}"


def _classed(clock: str, down: int = 1) -> str:
    """A pattern reading `clock` with its hour's last digit as a class of it and another (`0[89]:30`)."""
    return f"{clock[0]}[{_below(clock, down)[1]}{clock[1]}]{re.escape(clock[2:])}"


# -- schedule_meeting_timezones ("Tell me the time you picked"): the answer in prose, read with its title.
_PROSE = re.compile(r"for (\d\d:\d\d|\d:\d\d pm) your time \((\d\d:\d\d) in UTC\)")


def _prose(spec: Spec) -> tuple[str, str]:
    """The answer as prose (`for 13:30 your time (09:30 in UTC)`); (local clock, UTC clock)."""
    for turn in spec["reference"]:
        for step in turn["steps"]:
            said = step.get("say")
            if said and (m := _ISO_PAIR.search(said) or _PROSE.search(said)):
                step["say"] = _ISO_PAIR.sub(r"for \1 your time (\2 in UTC)", said)
                local = m.group(1)
                if local.endswith(" pm"):  # on a 12-hour clock: as a 24-hour one
                    local = f"{int(local.split(':')[0]) + 12}:{local[-5:-3]}"
                return local, m.group(2)
    raise CorpusError(f"{spec['capability']}: the answer states no date-time in two zones")


def _told_time(pattern: Callable[[str, str], str]) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        local, utc = _prose(spec)
        title = next(c["arguments"]["title"] for _, _, c in calls(spec, "calendar_create_event"))
        rule = check(spec, kind="text", where=lambda c: bool(c["rule"]["any_of"]))["rule"]
        rule["any_of"], rule["all_of"], rule["regex"] = [], [title], pattern(local, utc)
    return edit


def _told_wrong(spec: Spec) -> list[dict[str, Any]]:
    """Witness: the answer stating the clock the class admits below the local one (and its UTC an hour off too)."""
    local, utc = _prose(spec)
    said = [s["say"] for s in spec["reference"][0]["steps"] if s.get("say")][-1]
    return with_say(spec, said.replace(local, _below(local)).replace(utc, _below(utc)), 0)


def _told_at(local_wrong: str, utc_wrong: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """Witness: the answer with these clocks for the local and the UTC one (a 12-hour local one on a 12-hour
    clock)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        local, utc = _prose(spec)
        said = _answer(spec)
        twelve = f"{int(local[:2]) - 12}:{local[3:]} pm"
        if twelve in said:
            wrong = f"{int(local_wrong[:2]) % 12 or 12}:{local_wrong[3:]} pm"
            return with_say(spec, said.replace(twelve, wrong).replace(utc, utc_wrong), 0)
        return with_say(spec, said.replace(local, local_wrong).replace(utc, utc_wrong), 0)
    return witness


# -- a message's time read by a class: the attendees' mail (schedule_meeting_timezones), a DM (reschedule_conflict,
# calendar_reschedule_across_time_zones).
def _conds(spec: Spec, field: str) -> list[dict[str, Any]]:
    out = [w for c in spec["checks"] if c["rule"]["kind"] == "records" for w in c["rule"]["where"]
           if w["field"] == field and w.get("op") in ("contains", "matches") and _CLOCK.search(str(w["value"]))]
    if not out:
        raise CorpusError(f"{spec['capability']}: no condition reads a clock time in {field!r}")
    return out


def _message_classed(field: str, down: int = 1) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        for w in _conds(spec, field):
            value = str(w["value"])
            clock = _CLOCK.search(value)
            assert clock is not None
            text = value if w["op"] == "matches" else re.escape(value)
            at = text.find(re.escape(clock.group(0)))
            if at < 0:
                raise CorpusError(f"{spec['capability']}: {value!r} spells its clock otherwise")
            w["op"] = "matches"
            w["value"] = text[:at] + _classed(clock.group(0), down) + text[at + len(re.escape(clock.group(0))):]
    return edit


def _message_wrong(tool: str, arg: str, field: str, down: int = 1) -> Callable[[Spec], list[dict[str, Any]]]:
    """Witness: each `tool` call's `arg` with the clock the checks read stated an hour's digit lower."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        clocks = {m.group(0) for w in _conds(spec, field) for m in _CLOCK.finditer(str(w["value"]))}
        ref = reference(spec)
        changed = False
        for turn in ref:
            for step in turn["steps"]:
                call = step.get("call")
                if call and call["name"] == tool and isinstance(call["arguments"].get(arg), str):
                    text = call["arguments"][arg]
                    for clock in clocks:
                        text = re.sub(rf"\b{re.escape(clock)}\b", _below(clock, down), text)
                    changed |= text != call["arguments"][arg]
                    call["arguments"][arg] = text
        if not changed:
            raise CorpusError(f"{spec['capability']}: no {tool} states the checked time")
        return ref
    return witness


def _reply_classed(spec: Spec) -> None:
    """calendar_reschedule_across_time_zones: the answer's new time read as `1[24]:00`, the reply check reading the
    start in any zone dropped (the people emailed still read). Not `1[34]`: the answer states the proposed slot's
    13:00 UTC too, whose digit one up the old near miss moved into the class."""
    spec["checks"] = [c for c in spec["checks"] if c["rule"]["kind"] != "reply_states"]
    rule = check(spec, kind="text", where=lambda c: bool(c["rule"].get("regex")))["rule"]
    clock = _CLOCK.search(rule["regex"])
    if clock is None:
        raise CorpusError(f"{spec['capability']}: the reply pattern reads no clock time")
    rule["regex"] = rule["regex"].replace(clock.group(0), _classed(clock.group(0), 2))


def _reply_fixed(spec: Spec) -> None:
    spec["checks"] = [c for c in spec["checks"] if c["rule"]["kind"] != "reply_states"]


def _reply_wrong(spec: Spec) -> list[dict[str, Any]]:
    said = [s["say"] for s in spec["reference"][0]["steps"] if s.get("say")][-1]
    wrong = said.replace("14:00-15:00 UTC (16:00 Berlin, 15:00 London, 10:00 New York)",
                         "12:00 UTC for an hour (08:00 New York)")
    if wrong == said:
        raise CorpusError(f"{spec['capability']}: the answer does not state the new slot as expected")
    return with_say(spec, wrong, 0)


def _defect(name: str, base: str, what: str, breaks: Any, witness: Any, fix: Any = None) -> Defect:
    return Defect(CLASS, name, base, what, breaks=breaks, fix=fix, witness=witness, gate=GATE, code=CODE)


DEFECTS = [
    *(_defect(f"picked-time-class-{seed}", f"synth:schedule_meeting_timezones@{seed}",
              "tells the user a time an hour off the one it booked (the reply's pattern reads the hour by a class)",
              _told_time(lambda local, utc: rf"\b{_classed(local)}\b"), _told_wrong,
              fix=_told_time(lambda local, utc: rf"\b(?:{local}|{utc})\b"))
      for seed in (1, 2)),
    _defect("picked-time-alternation-3", "synth:schedule_meeting_timezones@3",
            "tells the user 12:00 for a meeting at 10:00 (15:00 UTC): the pattern lists a third hour",
            _told_time(lambda local, utc: rf"\b(?:{local}|{utc}|12:00)\b"),
            _told_at("12:00", "17:00"),
            fix=_told_time(lambda local, utc: rf"\b(?:{local}|{utc})\b")),
    *(_defect(f"picked-minutes-class-{seed}", f"synth:schedule_meeting_timezones@{seed}",
              "tells the user a time half an hour off the one it booked (the reply's pattern reads the minutes by a "
              "class)", _told_time(lambda local, utc: rf"\b{local[:3]}[03]0\b"), _told_at(other, utc_wrong),
              fix=_told_time(lambda local, utc: rf"\b(?:{local}|{utc})\b"))
      for seed, other, utc_wrong in ((1, "13:00", "09:00"), (2, "15:30", "07:30"))),
    _defect("picked-time-twelve-hour-1", "synth:schedule_meeting_timezones@1",
            "tells the user 3:30 pm for a meeting at 1:30 pm (the reply's 12-hour time read by a class of hours)",
            _twelve_hour, _told_at("15:30", "11:30"), fix=_twelve_hour_fixed),
    *(_defect(f"mailed-time-class-{seed}", f"synth:schedule_meeting_timezones@{seed}",
              "mails the attendees a start an hour off (the body's time read by a class)", _message_classed("body"),
              _message_wrong("mail_send", "body", "body"))
      for seed in (1,)),
    # seed 1's 11:00 (one below 12:00 in Helsinki) is the meeting's end in Lagos: the class admits 15:00 instead
    *(_defect(f"told-time-class-{seed}", f"synth:reschedule_conflict@{seed}",
              "tells the teammate a time off the one it moved the meeting to (the DM's time read by a class)",
              _message_classed("text", down), _message_wrong("chat_send_dm", "text", "text", down))
      for seed, down in ((1, 7), (2, 1))),
    _defect("new-time-class", "example:meeting_reschedule",
            "tells the user the meeting moved two hours earlier than it did (the reply's time read by a class)",
            _reply_classed, _reply_wrong, fix=_reply_fixed),
    _defect("dm-time-class", "example:meeting_reschedule",
            "tells Elena a time an hour off (the DM's UTC time read by a class)", _message_classed("text"),
            _message_wrong("chat_send_dm", "text", "text")),
]
