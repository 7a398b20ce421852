"""Durations the reference writes in another format than the user gave them: the user books "a 60-minute 'Roadmap
review'" or "'OKR review' (45 min)", and the writer's confirmation mail (or reply) says "(1 hour)", "(1h)", "(0.75 h)",
"(45 minutes)", with the check on the mail or the reply wanting the writer's format. An honest agent copies the
duration as the user wrote it ("60-minute", "45 min") and fails (`duration_pinned`). The sound twin accepts either
format.

Only the two booking generators (schedule_meeting_timezones, adapt_announced_change) have the user state a
duration; the other generators' turns give none, so the class is narrow.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "duration_pinned"
DETECTION = (
    "replay the reference with each duration its messages and replies write ('1 hour', '0.75 h') that the user wrote "
    "in another format ('60-minute', '45 min') written as the user did; where a check the reference passes then "
    "fails, it pins the writer's format"
)

# The user's duration, as the booking generators word it: "a 60-minute 'Title'" or "'Title' (45 min)".
_USER = re.compile(r"\b(\d+)-minute\b|\((\d+) min\)")
_MINE = re.compile(r"\(\d+ min\)")
Writer = Callable[[int], str]


def hours(minutes: int) -> str:
    """60 as "1 hour"."""
    return f"{minutes // 60} hour" if minutes % 60 == 0 else f"{minutes / 60:g} hours"


def hours_short(minutes: int) -> str:
    """60 as "1h", 45 as "0.75h"."""
    return f"{minutes / 60:g}h"


def hours_spaced(minutes: int) -> str:
    """45 as "0.75 h"."""
    return f"{minutes / 60:g} h"


def in_words(minutes: int) -> str:
    """60 as "an hour", 30 as "half an hour"."""
    return {30: "half an hour", 60: "an hour", 90: "an hour and a half"}[minutes]


def hr(minutes: int) -> str:
    """60 as "1 hr"."""
    return f"{minutes / 60:g} hr"


def minutes_long(minutes: int) -> str:
    """45 as "45 minutes"."""
    return f"{minutes} minutes"


def mins(minutes: int) -> str:
    """30 as "30 mins"."""
    return f"{minutes} mins"


_TENS = {30: "thirty", 40: "forty", 60: "sixty", 90: "ninety"}
_ONES = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def minutes_in_words(minutes: int) -> str:
    """45 as "forty-five minutes", 60 as "sixty minutes" (the number in words)."""
    tens, ones = _TENS[minutes - minutes % 10], _ONES[minutes % 10]
    return f"{tens}-{ones} minutes" if ones else f"{tens} minutes"


def minute_mark(minutes: int) -> str:
    """45 as "45'" (the minute mark)."""
    return f"{minutes}'"


def minutes_m(minutes: int) -> str:
    """60 as "60m"."""
    return f"{minutes}m"


def clock_h(minutes: int) -> str:
    """90 as "1:30 h", 45 as "0:45 h": hours and minutes, as on a clock's face."""
    return f"{minutes // 60}:{minutes % 60:02d} h"


def clock_hrs(minutes: int) -> str:
    """60 as "1:00 hrs"."""
    return f"{minutes // 60}:{minutes % 60:02d} hrs"


def iso_duration(minutes: int) -> str:
    """60 as "PT1H", 45 as "PT45M", 90 as "PT1H30M" (ISO 8601, as a calendar export writes it)."""
    h, m = divmod(minutes, 60)
    return "PT" + (f"{h}H" if h else "") + (f"{m}M" if m else "")


def _user(spec: Spec) -> tuple[int, str]:
    """The booking's length in minutes and how the user wrote it ("60-minute", "45 min")."""
    m = _USER.search(spec["turns"][0]["content"])
    if m is None:
        raise CorpusError(f"{spec['capability']}: the user states no duration")
    return (int(m[1]), m[0]) if m[1] else (int(m[2]), m[0][1:-1])


def _mail(ref: list[dict[str, Any]], capability: str) -> dict[str, Any]:
    for turn in ref:
        for step in turn["steps"]:
            if (step.get("call") or {}).get("name") == "mail_send":
                return step["call"]["arguments"]  # type: ignore[no-any-return]
    raise CorpusError(f"{capability}: the reference mails nobody")


def _reply(ref: list[dict[str, Any]], turn: int, capability: str) -> dict[str, Any]:
    for step in reversed(ref[turn]["steps"]):
        if step.get("say"):
            return step  # type: ignore[no-any-return]
    raise CorpusError(f"{capability}: turn {turn} of the reference has no reply")


def _with_duration(text: str, shown: str) -> str:
    """The text with its "(N min)" written as `shown`, or `shown` put after the meeting's quoted title."""
    if _MINE.search(text):
        return _MINE.sub(f"({shown})", text, count=1)
    new = re.sub(r"('[^']+')", rf"\1 ({shown})", text, count=1)
    if new == text:
        raise CorpusError(f"no meeting title in {text!r}")
    return new


def _written(ref: list[dict[str, Any]], spec: Spec, turn: int | None, shown: str) -> None:
    if turn is None:
        args = _mail(ref, spec["capability"])
        args["body"] = _with_duration(args["body"], shown)
    else:
        step = _reply(ref, turn, spec["capability"])
        step["say"] = _with_duration(step["say"], shown)


def _edit(turn: int | None, writer: Writer, defect: bool) -> Callable[[Spec], None]:
    """The reference writes the duration in the writer's format (in the booked mail where `turn` is None, else in
    that turn's reply); a check pins it (the defect) or accepts the user's format too (the twin)."""

    def edit(spec: Spec) -> None:
        length, user = _user(spec)
        mine = writer(length)
        _written(spec["reference"], spec, turn, mine)
        rule: dict[str, Any]
        if turn is None:
            body = {"field": "body", "op": "contains", "value": mine} if defect else {
                "field": "body", "op": "matches", "value": f"(?i)(?:{re.escape(mine)}|{re.escape(user)})"}
            rule = {"kind": "records", "app": "mail", "table": "messages",
                    "where": [{"field": "folder", "value": "sent"}, body], "count_op": "gte", "count": 1}
        else:
            said = _reply(spec["reference"], turn, spec["capability"])["say"]
            at = re.search(r"T(\d{2}:\d{2})", said)
            if at is None:
                raise CorpusError(f"{spec['capability']}: the reply of turn {turn} gives no time")
            # The reply states the booking: its local time and its length.
            rule = {"kind": "text", "scope": "final", "turn": turn,
                    "all_of": [at[1], mine if defect else [mine, user]]}
        spec["checks"].append({"id": "length-stated", "description": "the meeting's length is stated",
                               "rule": rule})
    return edit


def _honest(turn: int | None, writer: Writer) -> Callable[[Spec], list[dict[str, Any]]]:
    """The twin's reference with the duration written as the user wrote it."""

    def witness(spec: Spec) -> list[dict[str, Any]]:
        length, user = _user(spec)
        ref = reference(spec)
        text = _mail(ref, spec["capability"]) if turn is None else _reply(ref, turn, spec["capability"])
        key = "body" if turn is None else "say"
        if f"({writer(length)})" not in text[key]:
            raise CorpusError(f"{spec['capability']}: the reference does not write the length as {writer(length)!r}")
        text[key] = text[key].replace(f"({writer(length)})", f"({user})")
        return ref
    return witness


def _pair(name: str, base: str, turn: int | None, writer: Writer, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_edit(turn, writer, True), fix=_edit(turn, writer, False),
                  witness=_honest(turn, writer), witness_kind="honest", gate="mutations", code="format_pinned")


_MAILED = "fails the agent that mails the meeting's length as the user wrote it ('{u}'), not as '{w}'"
_REPLIED = "fails the agent whose reply gives the meeting's length as the user wrote it ('{u}'), not as '{w}'"
_BOOK = "synth:schedule_meeting_timezones@"
_ADAPT = "synth:adapt_announced_change@"

DEFECTS = [
    _pair("booked-mail-hour-2", f"{_BOOK}2", None, hours, _MAILED.format(u="60-minute", w="1 hour")),
    _pair("booked-mail-h-11", f"{_BOOK}11", None, hours_short, _MAILED.format(u="60-minute", w="1h")),
    _pair("booked-mail-decimal-hours-3", f"{_BOOK}3", None, hours_spaced, _MAILED.format(u="45-minute", w="0.75 h")),
    _pair("booked-mail-minutes-4", f"{_BOOK}4", None, minutes_long, _MAILED.format(u="45 min", w="45 minutes")),
    _pair("booked-mail-mins-1", f"{_BOOK}1", None, mins, _MAILED.format(u="30-minute", w="30 mins")),
    _pair("booked-mail-hour-8", f"{_BOOK}8", None, hours, _MAILED.format(u="60 min", w="1 hour")),
    _pair("booked-reply-hour-2", f"{_ADAPT}2", 0, hours, _REPLIED.format(u="60-minute", w="1 hour")),
    _pair("moved-reply-decimal-hours-8", f"{_ADAPT}8", 1, hours_short, _REPLIED.format(u="30-minute", w="0.5h")),
    _pair("booked-reply-minutes-11", f"{_ADAPT}11", 0, minutes_long, _REPLIED.format(u="45-minute", w="45 minutes")),
    _pair("moved-reply-hour-15", f"{_ADAPT}15", 1, hours, _REPLIED.format(u="60-minute", w="1 hour")),
    _pair("booked-mail-words-14", f"{_BOOK}14", None, in_words, _MAILED.format(u="60-minute", w="an hour")),
    _pair("booked-reply-hr-17", f"{_ADAPT}17", 0, hr, _REPLIED.format(u="60-minute", w="1 hr")),
]

# Durations written as hours and minutes on a clock's face ("1:00 h", "0:45 hrs") or in ISO 8601 ("PT45M"), which
# the format replay read as a time of day, or not at all.
DEFECTS += [
    _pair("booked-mail-clock-2", f"{_BOOK}2", None, clock_h, _MAILED.format(u="60-minute", w="1:00 h")),
    _pair("booked-mail-clock-3", f"{_BOOK}3", None, clock_h, _MAILED.format(u="45-minute", w="0:45 h")),
    _pair("booked-mail-clock-hrs-4", f"{_BOOK}4", None, clock_hrs, _MAILED.format(u="45 min", w="0:45 hrs")),
    _pair("booked-mail-iso-1", f"{_BOOK}1", None, iso_duration, _MAILED.format(u="30-minute", w="PT30M")),
    _pair("booked-mail-iso-8", f"{_BOOK}8", None, iso_duration, _MAILED.format(u="60 min", w="PT1H")),
    _pair("booked-reply-clock-2", f"{_ADAPT}2", 0, clock_h, _REPLIED.format(u="60-minute", w="1:00 h")),
    _pair("moved-reply-clock-hrs-8", f"{_ADAPT}8", 1, clock_hrs, _REPLIED.format(u="30-minute", w="0:30 hrs")),
    _pair("booked-reply-iso-11", f"{_ADAPT}11", 0, iso_duration, _REPLIED.format(u="45-minute", w="PT45M")),
]

# Durations as a number in words ("forty-five minutes"), with the minute mark ("45'") or as "60m", which the format
# replay did not read.
DEFECTS += [
    _pair("booked-mail-minutes-words-1", f"{_BOOK}1", None, minutes_in_words,
          _MAILED.format(u="30-minute", w="thirty minutes")),
    _pair("booked-mail-minutes-words-3", f"{_BOOK}3", None, minutes_in_words,
          _MAILED.format(u="45-minute", w="forty-five minutes")),
    _pair("booked-mail-minutes-words-8", f"{_BOOK}8", None, minutes_in_words,
          _MAILED.format(u="60 min", w="sixty minutes")),
    _pair("booked-reply-minutes-words-11", f"{_ADAPT}11", 0, minutes_in_words,
          _REPLIED.format(u="45-minute", w="forty-five minutes")),
    _pair("moved-reply-minutes-words-8", f"{_ADAPT}8", 1, minutes_in_words,
          _REPLIED.format(u="30-minute", w="thirty minutes")),
    _pair("booked-mail-minute-mark-4", f"{_BOOK}4", None, minute_mark, _MAILED.format(u="45 min", w="45'")),
    _pair("booked-mail-minute-mark-11", f"{_BOOK}11", None, minute_mark, _MAILED.format(u="60-minute", w="60'")),
    _pair("moved-reply-minute-mark-15", f"{_ADAPT}15", 1, minute_mark, _REPLIED.format(u="60-minute", w="60'")),
    _pair("booked-mail-m-14", f"{_BOOK}14", None, minutes_m, _MAILED.format(u="60-minute", w="60m")),
    _pair("booked-reply-m-17", f"{_ADAPT}17", 0, minutes_m, _REPLIED.format(u="60-minute", w="60m")),
]
