"""Dates the user, or the document the answer comes from, gave in one notation that the writer relays in a numeric
notation of another locale: the user asks for the ticket to be picked up "by 2026-06-02", the meeting booked on
"Tuesday 3 November", the contract file says "renewal date | 2027-04-19"; the writer's DM, booking mail, reply or
draft says "02.06.2026" (dotted, day first), "2.6.2026", "02-06-2026" (dashed), "2026/06/02" (year first, slashes) or
"3-Nov-2026", and the check on the message wants the writer's notation. An honest agent that copies the date as it
was given fails. Nobody asked for a notation. The sound twin accepts either (or, for a document's date, wants the
document's).

The format replay read a date with slashes only (`02/06/2026`), and took a dotted or dashed one (`02.06.2026`) for a
phone number dialled at home, so it never wrote the user's date back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads a date of day, month and year
separated by dots, dashes or slashes (the same separator twice, either way round), year first with dots or slashes,
and a day, month name and year joined by dashes (`3-Nov-2026`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tests.defects._core import Defect, reference
from tests.defects.format_pinned import _MONTHS, DM, MAIL, Site, When, Writer, _relayed_in
from tests.defects.format_pinned import _pair as format_pair
from tests.defects.relative_date_pinned import _DELEGATE, _DUE, _REPLIED, _REPLY_TURN_1

CLASS = "date_notation_pinned"
DETECTION = (
    "read dates in every numeric notation (day, month and year joined by dots, dashes or slashes, either way round; "
    "year first with dots or slashes; '3-Nov-2026'); replay the reference with each date its messages and replies "
    "write in a notation other than the one the user or the document it read gave, written as they did; where a "
    "check the reference passes then fails, it pins the writer's notation"
)


def _as(pattern: str) -> Writer:
    """The user's date in the writer's `pattern` ({d} day, {m} month, {b} month's short name, {y} year)."""

    def writer(when: When, year: int) -> str:
        y, m, d = when.values[0]
        return pattern.format(d=d, m=m, b=_MONTHS[m - 1][:3], y=y or year)
    return writer


dotted = _as("{d:02d}.{m:02d}.{y}")  # 2026-06-02 as "02.06.2026"
dotted_short = _as("{d}.{m}.{y}")  # as "2.6.2026"
dashed = _as("{d:02d}-{m:02d}-{y}")  # as "02-06-2026"
year_slashes = _as("{y}/{m:02d}/{d:02d}")  # as "2026/06/02"
year_dots = _as("{y}.{m:02d}.{d:02d}")  # as "2026.06.02"
day_mon_year = _as("{d}-{b}-{y}")  # as "2-Jun-2026"


def _fact_as(pattern: str) -> Callable[[str], str]:
    """A document's ISO date ("2027-04-19") in the writer's `pattern`."""

    def writer(fact: str) -> str:
        y, m, d = (int(p) for p in fact.split("-"))
        return pattern.format(d=d, m=m, b=_MONTHS[m - 1][:3], y=y)
    return writer


def _pair(name: str, base: str, site: Site, writer: Writer, away: str) -> Defect:
    return replace(format_pair(name, base, site, "date", writer, away), cls=CLASS)


def _from_document(name: str, base: str, pattern: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_relayed_in(_fact_as(pattern)), witness=reference,
                  witness_kind="honest", gate="mutations", code="format_pinned")


_BOOKED = "fails the agent that mails the day as the user gave it ('{u}'), not as '{w}'"
_MOVED = "fails the agent that tells the colleague the day as the user gave it ('{u}'), not as '{w}'"
_FILE = "fails the agent that copies the date as the document gives it ({u}), not as '{w}'"

DEFECTS = [
    _pair("dm-due-dotted-1", f"{_DELEGATE}1", DM, dotted, _DUE.format(u="2026-06-02", w="02.06.2026")),
    _pair("dm-due-year-slashes-2", f"{_DELEGATE}2", DM, year_slashes, _DUE.format(u="2026-06-12", w="2026/06/12")),
    _pair("dm-due-dashed-3", f"{_DELEGATE}3", DM, dashed, _DUE.format(u="2026-05-19", w="19-05-2026")),
    _pair("dm-due-day-mon-year-4", f"{_DELEGATE}4", DM, day_mon_year, _DUE.format(u="2026-02-01", w="1-Feb-2026")),
    _pair("reply-due-dotted-short-2", f"{_DELEGATE}2", _REPLY_TURN_1, dotted_short,
          _REPLIED.format(u="2026-06-12", w="12.6.2026")),
    _pair("booking-mail-dotted-1", "synth:schedule_meeting_timezones@1", MAIL, dotted,
          _BOOKED.format(u="Tuesday 3 November", w="03.11.2026")),
    _pair("booking-mail-day-mon-year-2", "synth:schedule_meeting_timezones@2", MAIL, day_mon_year,
          _BOOKED.format(u="Tuesday 29 September", w="29-Sep-2026")),
    _pair("moved-dm-dotted-short-1", "synth:reschedule_conflict@1", DM, dotted_short,
          _MOVED.format(u="Wednesday 16 September", w="16.9.2026")),
    _pair("moved-dm-year-dots-2", "synth:reschedule_conflict@2", DM, year_dots,
          _MOVED.format(u="Friday 30 October", w="2026.10.30")),
    _from_document("reply-renewal-dotted-1", "synth:inbox_triage_reply@1", "{d:02d}.{m:02d}.{y}",
                   _FILE.format(u="2027-04-19", w="19.04.2027")),
    _from_document("draft-review-date-dashed-1", "synth:draft_only_reply@1", "{d:02d}-{m:02d}-{y}",
                   _FILE.format(u="an ISO date", w="DD-MM-YYYY")),
    _from_document("dm-renewal-year-slashes-6", "synth:lookup_answer_source@6", "{y}/{m:02d}/{d:02d}",
                   _FILE.format(u="an ISO date", w="YYYY/MM/DD")),
    _from_document("reply-renewal-day-mon-year-2", "synth:inbox_triage_reply@2", "{d}-{b}-{y}",
                   _FILE.format(u="an ISO date", w="D-Mon-YYYY")),
]
