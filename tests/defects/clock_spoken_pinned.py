"""Times of day the user gave on the 24-hour clock with a colon ("my on-call shift ends at 02:30", "working hours
(09:00-17:00)") that the writer relays as spoken ("half past two", "quarter past three", "quarter to nine", "one in
the afternoon", "nine in the morning", "two thirty", "eight forty-five"), as a bare French hour mark ("7h", "16h") or with an hour unit after the colon
("17:00 hrs"). The writer's handoff post, booking mail or DM says so, and the check on it wants the writer's words. An
honest agent that copies "02:30" fails. Nobody asked for an idiom. The sound twin accepts either.

The format replay read none of the spoken forms, read "7h" as a duration of seven hours only and "17:00 hrs" as a
duration of seventeen hours, never the same as the user's time, so it never wrote the user's time back: main accepted
every hour-mark and hour-unit case here. The numeral replay read the hour of "half past two" as a count and wrote
"half past 2" ("two thirty" as "2 30"), so main rejected the sound twins of the spoken cases (as `numeral_pinned`), and their defects only by
that misreading and by the pinned-wording gate (a phrase of three words).

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads "half past N", "quarter past/to N",
"five/ten/twenty(-five) past/to N", "N minutes past/to M", "noon", "midnight", "N in the morning/afternoon/evening"
and an hour and its minutes in words ("two thirty", "six oh five") as times of day (morning or afternoon unless a part of the day says which), and takes an hour mark without minutes
("7h", "16h") and a clock's face followed by an hour unit ("17:00 hrs") for the time of day as well as the duration.
"""

from __future__ import annotations

from dataclasses import replace

from tests.defects import clock_notation_pinned as notation
from tests.defects._core import Defect
from tests.defects.clock_idiom_pinned import _HANDOFF, _HOURS, _SHIFT, _TOLD, _hm
from tests.defects.clock_notation_pinned import BOOKING, HANDOFF, MOVED, Site, Writer
from tests.defects.format_pinned import When

CLASS = "clock_spoken_pinned"
DETECTION = (
    "read spoken times ('half past two', 'quarter to nine', 'twenty past six', 'noon', 'one in the afternoon'), the "
    "bare hour mark ('7h') and a clock's face with an hour unit ('17:00 hrs') as times of day; replay the reference "
    "with each time its messages write that the user wrote with a colon, written as the user did; where a check the "
    "reference passes then fails, it pins the writer's idiom"
)
_FACE = ["twelve", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"]


def half_past(when: When) -> str:
    """02:30 as "half past two"."""
    h, _ = _hm(when)
    return f"half past {_FACE[h % 12]}"


def quarter_past(when: When) -> str:
    """15:15 as "quarter past three"."""
    h, _ = _hm(when)
    return f"quarter past {_FACE[h % 12]}"


def quarter_to(when: When) -> str:
    """08:45 as "quarter to nine"."""
    h, _ = _hm(when)
    return f"quarter to {_FACE[(h + 1) % 12]}"


def hour_minutes(when: When) -> str:
    """02:30 as "two thirty", 08:45 as "eight forty-five" (the hour on the clock's face and its minutes, in words)."""
    h, m = _hm(when)
    return f"{_FACE[h % 12]} {({15: 'fifteen', 30: 'thirty', 45: 'forty-five'})[m]}"


def hour_mark(when: When) -> str:
    """07:00 as "7h", 16:00 as "16h"."""
    h, _ = _hm(when)
    return f"{h}h"


def part_of_day(when: When) -> str:
    """13:00 as "one in the afternoon", 09:00 as "nine in the morning"."""
    h, _ = _hm(when)
    return f"{_FACE[h % 12]} in the {'morning' if h < 12 else 'afternoon' if h < 18 else 'evening'}"


def face_hrs(when: When) -> str:
    """17:00 as "17:00 hrs"."""
    h, m = _hm(when)
    return f"{h:02d}:{m:02d} hrs"


def _pair(name: str, base: str, site: Site, writer: Writer, away: str) -> Defect:
    return replace(notation._pair(name, base, site, writer, away), cls=CLASS)


DEFECTS = [
    _pair("handoff-post-half-past-1", f"{_HANDOFF}1", HANDOFF, half_past, _SHIFT.format(u="02:30", w="half past two")),
    _pair("handoff-post-half-past-3", f"{_HANDOFF}3", HANDOFF, half_past, _SHIFT.format(u="04:30", w="half past four")),
    _pair("handoff-post-half-past-8", f"{_HANDOFF}8", HANDOFF, half_past,
          _SHIFT.format(u="11:30", w="half past eleven")),
    _pair("handoff-post-quarter-past-6", f"{_HANDOFF}6", HANDOFF, quarter_past,
          _SHIFT.format(u="15:15", w="quarter past three")),
    _pair("handoff-post-quarter-past-12", f"{_HANDOFF}12", HANDOFF, quarter_past,
          _SHIFT.format(u="06:15", w="quarter past six")),
    _pair("handoff-post-quarter-to-7", f"{_HANDOFF}7", HANDOFF, quarter_to,
          _SHIFT.format(u="08:45", w="quarter to nine")),
    _pair("handoff-post-hour-minutes-1", f"{_HANDOFF}1", HANDOFF, hour_minutes, _SHIFT.format(u="02:30", w="two thirty")),
    _pair("handoff-post-hour-minutes-6", f"{_HANDOFF}6", HANDOFF, hour_minutes,
          _SHIFT.format(u="15:15", w="three fifteen")),
    _pair("handoff-post-hour-minutes-7", f"{_HANDOFF}7", HANDOFF, hour_minutes,
          _SHIFT.format(u="08:45", w="eight forty-five")),
    _pair("handoff-post-hour-minutes-12", f"{_HANDOFF}12", HANDOFF, hour_minutes,
          _SHIFT.format(u="06:15", w="six fifteen")),
    _pair("handoff-post-hour-minutes-14", f"{_HANDOFF}14", HANDOFF, hour_minutes,
          _SHIFT.format(u="11:30", w="eleven thirty")),
    _pair("handoff-post-hour-mark-2", f"{_HANDOFF}2", HANDOFF, hour_mark, _SHIFT.format(u="07:00", w="7h")),
    _pair("handoff-post-hour-mark-9", f"{_HANDOFF}9", HANDOFF, hour_mark, _SHIFT.format(u="16:00", w="16h")),
    _pair("handoff-post-part-of-day-5", f"{_HANDOFF}5", HANDOFF, part_of_day,
          _SHIFT.format(u="13:00", w="one in the afternoon")),
    _pair("handoff-post-face-hrs-13", f"{_HANDOFF}13", HANDOFF, face_hrs, _SHIFT.format(u="17:00", w="17:00 hrs")),
    _pair("handoff-post-face-hrs-11", f"{_HANDOFF}11", HANDOFF, face_hrs, _SHIFT.format(u="08:45", w="08:45 hrs")),
    _pair("handoff-post-face-hrs-14", f"{_HANDOFF}14", HANDOFF, face_hrs, _SHIFT.format(u="11:30", w="11:30 hrs")),
    _pair("handoff-post-hour-mark-5", f"{_HANDOFF}5", HANDOFF, hour_mark, _SHIFT.format(u="13:00", w="13h")),
    _pair("handoff-post-hour-mark-15", f"{_HANDOFF}15", HANDOFF, hour_mark, _SHIFT.format(u="17:00", w="17h")),
    _pair("booking-mail-hour-mark-1", "synth:schedule_meeting_timezones@1", BOOKING, hour_mark, _HOURS.format(w="9h")),
    _pair("booking-mail-part-of-day-2", "synth:schedule_meeting_timezones@2", BOOKING, part_of_day,
          _HOURS.format(w="nine in the morning")),
    _pair("moved-dm-hour-mark-1", "synth:reschedule_conflict@1", MOVED, hour_mark, _TOLD.format(w="9h")),
    _pair("moved-dm-part-of-day-2", "synth:reschedule_conflict@2", MOVED, part_of_day,
          _TOLD.format(w="nine in the morning")),
]
