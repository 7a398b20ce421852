"""Dates the user gave on the calendar that the writer relays relative to the day the task is set: the user asks for
the ticket to be picked up "by 2026-06-12" (on Wednesday 10 June), the meeting booked on "Tuesday 3 November" (on
Monday 2 November), and the writer's DM, mail or reply says "by Friday", "tomorrow", "next Tuesday", with the check
wanting that word. An honest agent copies the date as the user gave it ("by 2026-06-12") and fails
(`relative_date_pinned`). The sound twin accepts either.

Caught by the format replay (`format_pinned`, `_user_formats`), which reads "today", "tomorrow", "yesterday" and a
weekday ("Friday", "this Friday", "next Tuesday": the coming one or the one after) as a date relative to the world's
clock at the turn, and writes it as the user did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta

from tests.defects._core import CorpusError, Defect, base_spec
from tests.defects.format_pinned import DM, MAIL, Site, When, Writer
from tests.defects.format_pinned import _pair as format_pair

CLASS = "relative_date_pinned"
DETECTION = (
    "replay the reference with each relative date its messages and replies write ('tomorrow', 'Friday', 'next "
    "Tuesday'), read against the world's clock at the turn, that the user wrote as a calendar date, written as the "
    "user did; where a check the reference passes then fails, it pins the writer's word"
)
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
Relative = Callable[[date, date], str]


def tomorrow(day: date, today: date) -> str:
    if day - today != timedelta(days=1):
        raise CorpusError(f"{day} is not the day after {today}")
    return "tomorrow"


def weekday(day: date, today: date) -> str:
    """The day within the coming week by its name, "Friday"."""
    if not 1 <= (day - today).days <= 6:
        raise CorpusError(f"{day} is not within the week after {today}")
    return _DAYS[day.weekday()]


def this_weekday(day: date, today: date) -> str:
    return f"this {weekday(day, today)}"


def next_weekday(day: date, today: date) -> str:
    """The day of the next week by its name, "next Tuesday" (eight days ahead on a Monday)."""
    if not 7 <= (day - today).days <= 13:
        raise CorpusError(f"{day} is not in the week after the one of {today}")
    return f"next {_DAYS[day.weekday()]}"


def _relative_to(base: str, relative: Relative) -> Writer:
    """The user's date as the writer writes it, relative to the day the task on `base` is set."""

    def writer(when: When, year: int) -> str:
        today = date.fromisoformat(base_spec(base)["world"]["start"][:10])
        y, m, d = when.values[0]
        return relative(date(y or year, m, d), today)
    return writer


def _pair(name: str, base: str, site: Site, relative: Relative, away: str) -> Defect:
    """format_pinned's edit (the check pins the writer's word; the twin's accepts the user's date too) with the
    date written relative to today."""
    return replace(format_pair(name, base, site, "date", _relative_to(base, relative), away), cls=CLASS)


_DUE = "fails the agent that asks in the DM for the date as the user gave it ({u}), not as '{w}'"
_BOOKED = "fails the agent that mails the day as the user gave it ('{u}'), not as 'tomorrow'"
_MOVED = "fails the agent that tells the colleague the day as the user gave it ('{u}'), not as 'tomorrow'"
_REPLIED = "fails the agent whose reply gives the due date as the user did ({u}), not as '{w}'"
_DELEGATE = "synth:delegate_and_follow_up@"
_REPLY_TURN_1: Site = (1, None, "say", "", "")

DEFECTS = [
    _pair("dm-due-next-weekday-1", f"{_DELEGATE}1", DM, next_weekday, _DUE.format(u="2026-06-02", w="next Tuesday")),
    _pair("dm-due-weekday-2", f"{_DELEGATE}2", DM, weekday, _DUE.format(u="2026-06-12", w="Friday")),
    _pair("dm-due-next-weekday-3", f"{_DELEGATE}3", DM, next_weekday, _DUE.format(u="2026-05-19", w="next Tuesday")),
    _pair("dm-due-weekday-4", f"{_DELEGATE}4", DM, weekday, _DUE.format(u="2026-02-01", w="Sunday")),
    _pair("dm-due-this-weekday-5", f"{_DELEGATE}5", DM, this_weekday, _DUE.format(u="2026-05-31", w="this Sunday")),
    _pair("dm-due-weekday-6", f"{_DELEGATE}6", DM, weekday, _DUE.format(u="2026-09-05", w="Saturday")),
    _pair("reply-due-weekday-2", f"{_DELEGATE}2", _REPLY_TURN_1, weekday,
          _REPLIED.format(u="2026-06-12", w="Friday")),
    _pair("booking-mail-tomorrow-1", "synth:schedule_meeting_timezones@1", MAIL, tomorrow,
          _BOOKED.format(u="Tuesday 3 November")),
    _pair("booking-mail-tomorrow-4", "synth:schedule_meeting_timezones@4", MAIL, tomorrow,
          _BOOKED.format(u="Friday 3 July")),
    _pair("moved-dm-tomorrow-1", "synth:reschedule_conflict@1", DM, tomorrow,
          _MOVED.format(u="Wednesday 16 September")),
    _pair("moved-dm-tomorrow-2", "synth:reschedule_conflict@2", DM, tomorrow, _MOVED.format(u="Friday 30 October")),
]
