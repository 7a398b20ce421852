"""Times of day the user gave on the 24-hour clock with a colon ("my on-call shift ends at 02:30", "working hours
(09:00-17:00)") that the writer relays in a clock idiom: the French (and Quebec, Belgian, Swiss) hour mark ("02h30",
"9h00", "15 h 15") or the hour on the clock's face ("7 o'clock", "nine o'clock", "1 o'clock in the afternoon", "9
o'clock in the morning"); the writer's handoff post, booking mail or DM says so, and the check on it wants the
writer's idiom. An honest agent that copies "02:30" fails. Nobody asked for an idiom. The sound twin accepts either.

The format replay read "02h30" as a duration (150 minutes), never the same as the user's time, and "9 o'clock" as
nothing, so it never wrote the user's time back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now takes an hour and two-digit minutes joined
by an `h` ("14h30", "9h00", "16H00") for the same value as a time of day with that hour and minute (the form reads
as a duration too: "a 1h30 meeting"), and reads "N o'clock" (in digits or words) as that hour, morning or afternoon
unless a part of the day ("in the morning", "in the afternoon", "in the evening", "am", "pm") says which.
"""

from __future__ import annotations

from dataclasses import replace

from tests.defects import clock_notation_pinned as notation
from tests.defects._core import Defect
from tests.defects.clock_notation_pinned import BOOKING, HANDOFF, MOVED, Site, Writer
from tests.defects.format_pinned import When

CLASS = "clock_idiom_pinned"
DETECTION = (
    "read the French hour mark ('14h30', '9h00', '15 h 15') as a time of day as well as a duration, and 'N o'clock' "
    "(digits or words, with or without a part of the day) as a time; replay the reference with each time its messages "
    "write that the user wrote with a colon, written as the user did; where a check the reference passes then fails, "
    "it pins the writer's idiom"
)

def _hm(when: When) -> tuple[int, int]:
    _, h, m = when.values[0]
    return h, m


def _mark(pattern: str) -> Writer:
    """The user's time with the French hour mark, in `pattern` ({h} hour, {m} minute)."""

    def writer(when: When) -> str:
        h, m = _hm(when)
        return pattern.format(h=h, m=m)
    return writer


french = _mark("{h:02d}h{m:02d}")  # 02:30 as "02h30"
french_bare = _mark("{h}h{m:02d}")  # 04:30 as "4h30", 09:00 as "9h00"
french_upper = _mark("{h:02d}H{m:02d}")  # 16:00 as "16H00"


def oclock(when: When) -> str:
    """07:00 as "7 o'clock", 13:00 as "1 o'clock" (the hour on the clock's face, morning or afternoon)."""
    h, _ = _hm(when)
    return f"{h % 12 or 12} o'clock"


def _pair(name: str, base: str, site: Site, writer: Writer, away: str) -> Defect:
    return replace(notation._pair(name, base, site, writer, away), cls=CLASS)


_SHIFT = "fails the agent that posts the shift's end as the user wrote it ('{u}'), not as '{w}'"
_HOURS = "fails the agent that mails the working hours as the user wrote them ('09:00'), not as '{w}'"
_TOLD = "fails the agent that tells the colleague the hours as the user wrote them ('09:00'), not as '{w}'"
_HANDOFF = "synth:oncall_handoff@"

DEFECTS = [
    _pair("handoff-post-french-1", f"{_HANDOFF}1", HANDOFF, french, _SHIFT.format(u="02:30", w="02h30")),
    _pair("handoff-post-oclock-2", f"{_HANDOFF}2", HANDOFF, oclock, _SHIFT.format(u="07:00", w="7 o'clock")),
    _pair("handoff-post-french-bare-3", f"{_HANDOFF}3", HANDOFF, french_bare, _SHIFT.format(u="04:30", w="4h30")),
    _pair("handoff-post-oclock-4", f"{_HANDOFF}4", HANDOFF, oclock, _SHIFT.format(u="09:00", w="9 o'clock")),
    _pair("handoff-post-oclock-afternoon-5", f"{_HANDOFF}5", HANDOFF, oclock, _SHIFT.format(u="13:00", w="1 o'clock")),
    _pair("handoff-post-french-6", f"{_HANDOFF}6", HANDOFF, french, _SHIFT.format(u="15:15", w="15h15")),
    _pair("handoff-post-french-8", f"{_HANDOFF}8", HANDOFF, french, _SHIFT.format(u="11:30", w="11h30")),
    _pair("handoff-post-french-upper-9", f"{_HANDOFF}9", HANDOFF, french_upper, _SHIFT.format(u="16:00", w="16H00")),
    _pair("booking-mail-french-1", "synth:schedule_meeting_timezones@1", BOOKING, french, _HOURS.format(w="09h00")),
    _pair("booking-mail-oclock-2", "synth:schedule_meeting_timezones@2", BOOKING, oclock, _HOURS.format(w="9 o'clock")),
    _pair("booking-mail-french-bare-3", "synth:schedule_meeting_timezones@3", BOOKING, french_bare,
          _HOURS.format(w="9h00")),
    _pair("moved-dm-french-bare-1", "synth:reschedule_conflict@1", MOVED, french_bare, _TOLD.format(w="9h00")),
    _pair("moved-dm-oclock-2", "synth:reschedule_conflict@2", MOVED, oclock, _TOLD.format(w="9 o'clock")),
]
