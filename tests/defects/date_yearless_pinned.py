"""Dates the user, or the document the answer comes from, gave with their year ("by 2026-06-02", "on Tuesday 3
November", "renewal date | 2027-04-19") that the writer relays as a day and a month in digits, without the year:
"2/6" or "3/11" (day first), "6/2" or "11/3" (month first, the American way), "02.06." or "03.11." (dotted, day
first, the German and Nordic way). The writer's DM, booking mail or reply says so, and the check on the message wants
the writer's form. An honest agent that copies the date as it was given fails. Nobody asked for a notation. The sound
twin accepts either (or, for a document's date, wants the document's).

The format replay read a numeric date only with its year (`02/06/2026`, `02.06.2026`): it read "3/11" as nothing and
"03.11." as the time of day 03:11, so it never wrote the user's date back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads a day and a month joined by a slash
(either way round, as a dated one is) and a day and a month of two digits each closed by a dot ("02.06.", day
first; "1.2." and "3.11." are versions as often) as a date of any year, the same as a date given with its year where
the month and the day agree.
"""

from __future__ import annotations

from dataclasses import replace

from tests.defects import date_notation_pinned as notation
from tests.defects._core import Defect, reference
from tests.defects.format_pinned import DM, MAIL, Site, Writer, _relayed_in
from tests.defects.relative_date_pinned import _DELEGATE, _DUE, _REPLIED, _REPLY_TURN_1

CLASS = "date_yearless_pinned"
DETECTION = (
    "read a day and a month in digits without a year ('3/11', '11/3', '03.11.') as a date of any year; replay the "
    "reference with each one its messages and replies write that the user or the document it read gave with its "
    "year, written as they did; where a check the reference passes then fails, it pins the writer's notation"
)

day_slash = notation._as("{d}/{m}")  # 2026-06-02 as "2/6"
month_slash = notation._as("{m}/{d}")  # as "6/2"
day_dotted = notation._as("{d:02d}.{m:02d}.")  # as "02.06."


def _pair(name: str, base: str, site: Site, writer: Writer, away: str) -> Defect:
    return replace(notation._pair(name, base, site, writer, away), cls=CLASS)


def _from_document(name: str, base: str, pattern: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_relayed_in(notation._fact_as(pattern)), witness=reference,
                  witness_kind="honest", gate="mutations", code="format_pinned")


_BOOKED = "fails the agent that mails the day as the user gave it ('{u}'), not as '{w}'"
_MOVED = "fails the agent that tells the colleague the day as the user gave it ('{u}'), not as '{w}'"
_FILE = "fails the agent that copies the date as the document gives it ({u}), not as '{w}'"

DEFECTS = [
    _pair("dm-due-day-slash-1", f"{_DELEGATE}1", DM, day_slash, _DUE.format(u="2026-06-02", w="2/6")),
    _pair("dm-due-month-slash-2", f"{_DELEGATE}2", DM, month_slash, _DUE.format(u="2026-06-12", w="6/12")),
    _pair("dm-due-dotted-3", f"{_DELEGATE}3", DM, day_dotted, _DUE.format(u="2026-05-19", w="19.05.")),
    _pair("reply-due-day-slash-2", f"{_DELEGATE}2", _REPLY_TURN_1, day_slash,
          _REPLIED.format(u="2026-06-12", w="12/6")),
    _pair("booking-mail-day-slash-1", "synth:schedule_meeting_timezones@1", MAIL, day_slash,
          _BOOKED.format(u="Tuesday 3 November", w="3/11")),
    _pair("booking-mail-dotted-2", "synth:schedule_meeting_timezones@2", MAIL, day_dotted,
          _BOOKED.format(u="Tuesday 29 September", w="29.09.")),
    _pair("booking-mail-month-slash-3", "synth:schedule_meeting_timezones@3", MAIL, month_slash,
          _BOOKED.format(u="the meeting's day", w="M/D")),
    _pair("moved-dm-month-slash-1", "synth:reschedule_conflict@1", DM, month_slash,
          _MOVED.format(u="Wednesday 16 September", w="9/16")),
    _pair("moved-dm-dotted-2", "synth:reschedule_conflict@2", DM, day_dotted,
          _MOVED.format(u="Friday 30 October", w="30.10.")),
    _from_document("reply-renewal-day-slash-1", "synth:inbox_triage_reply@1", "{d:02d}/{m:02d}",
                   _FILE.format(u="2027-04-19", w="19/04")),
    _from_document("dm-renewal-dotted-6", "synth:lookup_answer_source@6", "{d:02d}.{m:02d}.",
                   _FILE.format(u="an ISO date", w="DD.MM.")),
]
