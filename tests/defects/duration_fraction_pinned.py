"""Meeting lengths the user booked in minutes ("a 45-minute 'Roadmap review'", "'OKR review' (30 min)", "a
60-minute ...") that the writer's confirmation mail or reply gives as a fraction of an hour ("¾ h", "3/4 hour",
"¾-hour", "½ hour", "1/2 hour"), hyphenated ("half-hour", "1-hour", "1-hr"); the check on the mail
or the reply wants the writer's form. An honest agent that copies the length as the user wrote it fails. Nobody
asked for a form. The sound twin accepts either.

The format replay read none of "¾ h", "½ hour", "half-hour" or "1-hour", misread "3/4 hour" as four hours (and
"three-quarters of an hour" as one hour, "an hour and a quarter" as one hour, "an hour and fifteen minutes" as an hour
and a quarter-hour apart), so it never wrote the user's length back: main accepted every case here. (A form of three
words or more, "three-quarters of an hour", is rejected on main by the pinned-wording gate already.)

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads a vulgar fraction ("½", "¼", "¾",
with a whole number before it: "1½ hours") or a slashed one ("3/4", "1/2") before an hour unit, the quarters in
words ("three-quarters of an hour", "an hour and a quarter"), "an hour and N minutes", and a number joined to its
unit by a hyphen ("1-hour", "1-hr", "half-hour") as durations.
"""

from __future__ import annotations

from dataclasses import replace

from tests.defects import duration_pinned as plain
from tests.defects._core import Defect

CLASS = "duration_fraction_pinned"
DETECTION = (
    "read fractions of an hour ('¾ h', '1½ hours', '3/4 hour', 'three-quarters of an hour', 'an hour and a "
    "quarter') and hyphenated lengths ('half-hour', '1-hour') as durations; replay the reference with each one its "
    "messages and replies write that the user wrote in minutes, written as the user did; where a check the reference "
    "passes then fails, it pins the writer's form"
)
_VULGAR = {15: "¼", 30: "½", 45: "¾"}


def vulgar_h(minutes: int) -> str:
    """45 as "¾ h", 30 as "½ h"."""
    return f"{_VULGAR[minutes]} h" if minutes < 60 else f"{minutes // 60} h"


def vulgar_hour(minutes: int) -> str:
    """30 as "½ hour"."""
    return f"{_VULGAR[minutes]} hour"


def slashed_hour(minutes: int) -> str:
    """45 as "3/4 hour", 30 as "1/2 hour"."""
    return {15: "1/4", 30: "1/2", 45: "3/4"}[minutes] + " hour"


def vulgar_hyphen(minutes: int) -> str:
    """45 as "¾-hour"."""
    return f"{_VULGAR[minutes]}-hour"


def hyphen_hour(minutes: int) -> str:
    """60 as "1-hour", 30 as "half-hour"."""
    return "half-hour" if minutes == 30 else f"{minutes // 60}-hour"


def hyphen_hr(minutes: int) -> str:
    """60 as "1-hr"."""
    return f"{minutes // 60}-hr"


def _pair(name: str, base: str, turn: int | None, writer: plain.Writer, away: str) -> Defect:
    return replace(plain._pair(name, base, turn, writer, away), cls=CLASS)


_MAILED = plain._MAILED
_REPLIED = plain._REPLIED
_BOOK = plain._BOOK
_ADAPT = plain._ADAPT

DEFECTS = [
    _pair("booked-mail-vulgar-3", f"{_BOOK}3", None, vulgar_h, _MAILED.format(u="45-minute", w="¾ h")),
    _pair("booked-mail-slashed-4", f"{_BOOK}4", None, slashed_hour, _MAILED.format(u="45 min", w="3/4 hour")),
    _pair("booked-mail-vulgar-hyphen-14", f"{_ADAPT}14", 0, vulgar_hyphen, _REPLIED.format(u="45-minute", w="¾-hour")),
    _pair("booked-mail-vulgar-hour-1", f"{_BOOK}1", None, vulgar_hour, _MAILED.format(u="30-minute", w="½ hour")),
    _pair("booked-reply-slashed-9", f"{_ADAPT}9", 0, slashed_hour, _REPLIED.format(u="30-minute", w="1/2 hour")),
    _pair("booked-mail-half-hour-1", f"{_BOOK}1", None, hyphen_hour, _MAILED.format(u="30-minute", w="half-hour")),
    _pair("booked-mail-hyphen-hour-2", f"{_BOOK}2", None, hyphen_hour, _MAILED.format(u="60-minute", w="1-hour")),
    _pair("booked-mail-hyphen-hr-8", f"{_BOOK}8", None, hyphen_hr, _MAILED.format(u="60 min", w="1-hr")),
    _pair("booked-reply-vulgar-11", f"{_ADAPT}11", 0, vulgar_h, _REPLIED.format(u="45-minute", w="¾ h")),
    _pair("moved-reply-half-hour-8", f"{_ADAPT}8", 1, hyphen_hour, _REPLIED.format(u="30-minute", w="half-hour")),
    _pair("booked-reply-hyphen-hour-2", f"{_ADAPT}2", 0, hyphen_hour, _REPLIED.format(u="60-minute", w="1-hour")),
]
