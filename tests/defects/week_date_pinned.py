"""Dates the user, or the document the answer comes from, gave as a calendar date that the writer relays as an ISO
8601 week date: the user asks for the ticket to be picked up "by 2026-06-02", the meeting booked on "Tuesday 3
November", the contract file says "renewal date | 2027-04-19"; the writer's DM, booking mail, reply or draft says
"2026-W23-2" (the Tuesday of ISO week 23) or, compact, "2026W232", and the check on the message wants the week date.
An honest agent that copies the date as it was given fails. Nobody asked for a week date. The sound twin accepts
either (or, for a document's date, wants the document's).

The format replay read no week date (a year, a `W`, the week and the day of the week), so it never wrote the user's
date back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads an ISO week date, extended
(`2026-W23-2`) or compact (`2026W232`), as the day it names, and writes the date back as it was given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date

from tests.defects._core import Defect, reference
from tests.defects.date_notation_pinned import _pair as notation_pair
from tests.defects.format_pinned import DM, MAIL, When, Writer, _relayed_in
from tests.defects.relative_date_pinned import _DELEGATE, _DUE, _REPLIED, _REPLY_TURN_1

CLASS = "week_date_pinned"
DETECTION = (
    "read ISO 8601 week dates ('2026-W23-2', '2026W232') as the day they name; replay the reference with each date "
    "its messages and replies write as a week date that the user or the document it read gave as a calendar date, "
    "written as they did; where a check the reference passes then fails, it pins the writer's notation"
)


def _week(day: date, compact: bool) -> str:
    year, week, weekday = day.isocalendar()
    return f"{year}W{week:02d}{weekday}" if compact else f"{year}-W{week:02d}-{weekday}"


def _as_week(compact: bool) -> Writer:
    """The user's date as an ISO week date ("2026-W23-2", or compact "2026W232")."""

    def writer(when: When, year: int) -> str:
        y, m, d = when.values[0]
        return _week(date(y or year, m, d), compact)
    return writer


week = _as_week(False)
week_compact = _as_week(True)


def _fact_as_week(compact: bool) -> Callable[[str], str]:
    """A document's ISO date ("2027-04-19") as a week date."""
    return lambda fact: _week(date.fromisoformat(fact), compact)


def _pair(name: str, base: str, site: tuple[int, str | None, str, str, str], writer: Writer, away: str) -> Defect:
    return replace(notation_pair(name, base, site, writer, away), cls=CLASS)


def _from_document(name: str, base: str, compact: bool, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_relayed_in(_fact_as_week(compact)), witness=reference,
                  witness_kind="honest", gate="mutations", code="format_pinned")


_BOOKED = "fails the agent that mails the day as the user gave it ('{u}'), not as '{w}'"
_MOVED = "fails the agent that tells the colleague the day as the user gave it ('{u}'), not as '{w}'"
_FILE = "fails the agent that copies the date as the document gives it (an ISO date), not as a week date ('{w}')"

DEFECTS = [
    _pair("dm-due-week-1", f"{_DELEGATE}1", DM, week, _DUE.format(u="2026-06-02", w="2026-W23-2")),
    _pair("dm-due-week-compact-2", f"{_DELEGATE}2", DM, week_compact, _DUE.format(u="YYYY-MM-DD", w="YYYYWwwD")),
    _pair("dm-due-week-3", f"{_DELEGATE}3", DM, week, _DUE.format(u="YYYY-MM-DD", w="YYYY-Www-D")),
    _pair("dm-due-week-compact-4", f"{_DELEGATE}4", DM, week_compact, _DUE.format(u="YYYY-MM-DD", w="YYYYWwwD")),
    _pair("reply-due-week-2", f"{_DELEGATE}2", _REPLY_TURN_1, week, _REPLIED.format(u="YYYY-MM-DD", w="YYYY-Www-D")),
    _pair("booking-mail-week-1", "synth:schedule_meeting_timezones@1", MAIL, week,
          _BOOKED.format(u="Tuesday 3 November", w="2026-W45-2")),
    _pair("booking-mail-week-compact-2", "synth:schedule_meeting_timezones@2", MAIL, week_compact,
          _BOOKED.format(u="Tuesday 29 September", w="2026W402")),
    _pair("moved-dm-week-1", "synth:reschedule_conflict@1", DM, week,
          _MOVED.format(u="Wednesday 16 September", w="2026-W38-3")),
    _pair("moved-dm-week-compact-2", "synth:reschedule_conflict@2", DM, week_compact,
          _MOVED.format(u="Friday 30 October", w="2026W445")),
    _from_document("reply-renewal-week-1", "synth:inbox_triage_reply@1", False, _FILE.format(w="2027-W16-1")),
    _from_document("draft-review-date-week-compact-1", "synth:draft_only_reply@1", True, _FILE.format(w="YYYYWwwD")),
    _from_document("dm-renewal-week-6", "synth:lookup_answer_source@6", False, _FILE.format(w="YYYY-Www-D")),
    _from_document("reply-renewal-week-compact-2", "synth:inbox_triage_reply@2", True, _FILE.format(w="YYYYWwwD")),
]
