"""Dates the user gave in digits that the writer relays with the day as an ordinal in words: the user asks for the
ticket to be picked up "by 2026-06-12", the meeting booked on "Tuesday 3 November", and the writer's DM, mail or
reply says "by June twelfth", "on November third", with the check wanting those words. An honest agent copies the
date as the user gave it ("by 2026-06-12") and fails. Nobody asked for the day spelled out. The sound twin accepts
either.

The format replay read a day's ordinal in digits (`3rd June`), never in words, so main accepted every case here.
First drafts wrote "the twelfth of June": main rejected those as `wording_pinned` (a phrase of four words), so the
cases write the two-word form.

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads a day of the month as an ordinal in
words (`first` to `thirty-first`) after the month's name (`November third`, as `November 3rd`) or before it (`third
of November`, as `3rd of November`) as the date, and writes it as the user did.
"""

from __future__ import annotations

from dataclasses import replace

from tests.defects._core import Defect
from tests.defects.format_pinned import _MONTHS, DM, MAIL, Site, When, Writer
from tests.defects.format_pinned import _pair as format_pair
from tests.defects.relative_date_pinned import _DELEGATE, _DUE, _REPLIED, _REPLY_TURN_1

CLASS = "ordinal_date_pinned"
DETECTION = (
    "replay the reference with each date its messages and replies write with the day as an ordinal in words ('June "
    "twelfth', 'twelfth of June') that the user wrote in digits, written as the user did; where a check the "
    "reference passes then fails, it pins the writer's words"
)
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
             "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
             "twentieth"]


def _ordinal(day: int) -> str:
    if day <= 20:
        return _ORDINALS[day - 1]
    if day == 30:
        return "thirtieth"
    return f"{'twenty' if day < 30 else 'thirty'}-{_ORDINALS[day % 10 - 1]}"


def _as_words(pattern: str) -> Writer:
    """The user's date with the day as an ordinal in words ({o} the ordinal, {M} the month's name)."""

    def writer(when: When, year: int) -> str:
        _, m, d = when.values[0]
        return pattern.format(o=_ordinal(d), M=_MONTHS[m - 1])
    return writer


# 2026-06-12 as "June twelfth" (two words: a longer phrase, "the twelfth of June", is `wording_pinned` already)
month_ordinal = _as_words("{M} {o}")


def _pair(name: str, base: str, site: Site, writer: Writer, away: str) -> Defect:
    return replace(format_pair(name, base, site, "date", writer, away), cls=CLASS)


_BOOKED = "fails the agent that mails the day as the user gave it ('{u}'), not as '{w}'"
_MOVED = "fails the agent that tells the colleague the day as the user gave it ('{u}'), not as '{w}'"

DEFECTS = [
    _pair("dm-due-month-ordinal-1", f"{_DELEGATE}1", DM, month_ordinal, _DUE.format(u="2026-06-02", w="June second")),
    _pair("dm-due-month-ordinal-2", f"{_DELEGATE}2", DM, month_ordinal, _DUE.format(u="2026-06-12", w="June twelfth")),
    _pair("dm-due-month-ordinal-3", f"{_DELEGATE}3", DM, month_ordinal, _DUE.format(u="2026-05-19", w="May nineteenth")),
    _pair("dm-due-month-ordinal-4", f"{_DELEGATE}4", DM, month_ordinal, _DUE.format(u="2026-02-01", w="February first")),
    _pair("dm-due-month-ordinal-5", f"{_DELEGATE}5", DM, month_ordinal, _DUE.format(u="2026-05-31", w="May thirty-first")),
    _pair("reply-due-month-ordinal-2", f"{_DELEGATE}2", _REPLY_TURN_1, month_ordinal,
          _REPLIED.format(u="2026-06-12", w="June twelfth")),
    _pair("booking-mail-month-ordinal-1", "synth:schedule_meeting_timezones@1", MAIL, month_ordinal,
          _BOOKED.format(u="Tuesday 3 November", w="November third")),
    _pair("booking-mail-month-ordinal-4", "synth:schedule_meeting_timezones@4", MAIL, month_ordinal,
          _BOOKED.format(u="Friday 3 July", w="July third")),
    _pair("moved-dm-month-ordinal-1", "synth:reschedule_conflict@1", DM, month_ordinal,
          _MOVED.format(u="Wednesday 16 September", w="September sixteenth")),
    _pair("moved-dm-month-ordinal-2", "synth:reschedule_conflict@2", DM, month_ordinal,
          _MOVED.format(u="Friday 30 October", w="October thirtieth")),
]
