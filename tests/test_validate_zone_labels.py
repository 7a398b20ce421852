"""The zone replay's reading of a time labelled by an abbreviation or a fixed UTC offset, and of a time range
(`_user_zones.in_zone`, `in_season`)."""

from __future__ import annotations

import pytest

from coworkenv.validate._user_zones import in_season, in_zone
from coworkenv.world import parse_time

_AT = {parse_time("2026-04-15T14:00:00Z")}
_ZONES = {"Europe/Berlin", "America/New_York", "America/Sao_Paulo", "Asia/Dubai", "UTC"}


@pytest.mark.parametrize(("text", "asked", "want"), [
    # a fixed offset: read at that offset, the label rewritten with the time
    ("Booked for 16:00 UTC+2.", "UTC", "Booked for 14:00 UTC."),
    ("Booked for 16:00 (GMT+02:00).", "UTC", "Booked for 14:00 (UTC)."),
    ("Booked for 10:00 UTC-4.", "Europe/Berlin", "Booked for 16:00 Berlin time."),
    ("Booked for 18:00 UTC +04:00.", "UTC", "Booked for 14:00 UTC."),
    # an abbreviation goes with its time: "16:00 EDT" would be another instant
    ("Booked for 10:00 EDT.", "Europe/Berlin", "Booked for 16:00 Berlin time."),
    ("Booked for 16:00 CEST.", "UTC", "Booked for 14:00 UTC."),
    ("Booked for 10am EDT.", "UTC", "Booked for 14:00 UTC."),
    # an abbreviation the database writes as an offset ("-03"): read at the zone of that offset
    ("Booked for 11:00 BRT.", "Europe/Berlin", "Booked for 16:00 Berlin time."),
    ("Booked for 18:00 GST.", "UTC", "Booked for 14:00 UTC."),
])
def test_a_labelled_time_is_rewritten_with_its_label(text: str, asked: str, want: str) -> None:
    assert in_zone(text, asked, _AT, None, "Europe/Berlin", _ZONES) == want


@pytest.mark.parametrize(("text", "asked"), [
    ("Booked for 14:00 UTC (16:00 CEST).", "UTC"),  # already stated in the zone asked
    ("Booked for 16:00 UTC+2.", "Europe/Berlin"),  # Berlin's clock already
    ("Booked for 17:00 UTC+2.", "UTC"),  # no known instant at that offset
])
def test_nothing_to_rewrite(text: str, asked: str) -> None:
    assert in_zone(text, asked, _AT, None, "Europe/Berlin", _ZONES) is None


_START = {parse_time("2026-04-15T14:00:00Z")}  # only the start is a known instant: the end moves with it


@pytest.mark.parametrize(("text", "asked", "want"), [
    # every time of a range moved together, the label after its end rewritten once
    ("Booked 14:00-15:00 UTC.", "Europe/Berlin", "Booked 16:00-17:00 Berlin time."),
    ("Booked 14:00\u201315:30 UTC.", "Europe/Berlin", "Booked 16:00\u201317:30 Berlin time."),
    ("Booked 14:00 to 15:00 UTC.", "Europe/Berlin", "Booked 16:00 to 17:00 Berlin time."),
    ("Booked from 10:00 until 11:30 EDT.", "UTC", "Booked from 14:00 until 15:30 UTC."),
    ("Booked between 10 and 11am EDT.", "UTC", "Booked between 14:00 and 15:00 UTC."),
    ("Booked 2-3pm UTC.", "Europe/Berlin", "Booked 16:00-17:00 Berlin time."),
    ("Booked 10am-11am EDT.", "UTC", "Booked 14:00-15:00 UTC."),
    ("Booked 7-8am EDT.", "Asia/Dubai", None),  # 11:00-12:00 UTC: no known instant
    ("Booked 16:00-17:00 UTC+2.", "UTC", "Booked 14:00-15:00 UTC."),
    ("Booked 16:00 - 17:00 (GMT+02:00).", "UTC", "Booked 14:00 - 15:00 (UTC)."),
    ("Booked 23:00-00:00 Berlin time.", "UTC", None),  # 21:00 UTC: no known instant
    # a bare offset read as that offset, not in the default zones
    ("Booked 16:00 +02:00.", "UTC", "Booked 14:00 UTC."),
    ("Booked 19:30 (+0530).", "UTC", "Booked 14:00 (UTC)."),
    ("Booked 10:00 -04:00.", "UTC", "Booked 14:00 UTC."),
    ("Booked 16:00-17:00 +02:00.", "America/New_York", "Booked 10:00-11:00 New York time."),
    ("Booked 15:00 +01:00.", "UTC", "Booked 14:00 UTC."),  # not 15:00 read as UTC's
    ("Booked 16:00 +03:00.", "UTC", None),  # 13:00 UTC: no known instant
    ("Booked 13:00 -14:00 UTC.", "Europe/Berlin", "Booked 15:00 -16:00 Berlin time."),  # a range: 13:00 at
    # -14:00 is no known instant
])
def test_a_range_moves_together(text: str, asked: str, want: str | None) -> None:
    known = _START | {parse_time("2026-04-15T15:00:00Z")} if "15:00 +01:00" in text else _START
    assert in_zone(text, asked, known, None, "America/New_York", _ZONES) == want


def test_a_range_crossing_midnight_ends_the_next_day() -> None:
    at = {parse_time("2026-04-15T23:30:00Z")}
    assert in_zone("Booked 23:30-00:30 UTC.", "Europe/Berlin", at, None, "UTC", _ZONES) == \
        "Booked 01:30-02:30 Berlin time."


def test_a_range_already_stated_in_the_zone_asked() -> None:
    assert in_zone("Booked 14:00-15:00 UTC (16:00-17:00 CEST).", "Europe/Berlin", _START, None, "UTC", _ZONES) is None


@pytest.mark.parametrize(("text", "want"), [
    ("Booked from 15:00 until 16:00 Berlin.", "Booked from 16:00 until 17:00 Berlin."),
    ("Booked 15:00-16:00 Berlin.", "Booked 16:00-17:00 Berlin."),  # not 16:00-16:00: the end read with the start
    ("Booked 16:00-17:00 Berlin.", None),
])
def test_a_range_in_the_other_season_moves_together(text: str, want: str | None) -> None:
    assert in_season(text, {parse_time("2026-09-15T14:00:00Z")}, None, _ZONES) == want


@pytest.mark.parametrize(("text", "asked", "want"), [
    # a short offset (defects68): read where a time at it is a known instant
    ("Booked 16:00 +2.", "UTC", "Booked 14:00 UTC."),
    ("Booked 19:30 (+5:30).", "UTC", "Booked 14:00 (UTC)."),
    ("Booked 10:00 -4.", "Europe/Berlin", "Booked 16:00 Berlin time."),
    ("Booked 4pm +2.", "UTC", "Booked 14:00 UTC."),
    ("Booked 16:00-17:00 +2.", "UTC", "Booked 14:00-15:00 UTC."),
    ("Booked 18:00 +2.", "UTC", None),  # 16:00 UTC: no known instant
    ("Booked 16:00 +2 days later.", "Europe/Berlin", None),  # Berlin's clock already
    # a label after each time of a range: two labelled times, not the offset UTC-10
    ("Booked 14:00 UTC - 15:00 UTC.", "Europe/Berlin", "Booked 16:00 Berlin time - 17:00 Berlin time."),
    ("Booked 14:00 GMT - 15:00 GMT.", "America/New_York", "Booked 10:00 New York time - 11:00 New York time."),
    ("Booked 14:00 UTC - 17:00 CEST.", "America/New_York", "Booked 10:00 New York time - 11:00 New York time."),
    # a 24-hour start with a 12-hour end
    ("Booked 16:00-5pm Berlin time.", "UTC", "Booked 14:00-15:00 UTC."),
    ("Booked 14:00 to 3 p.m. UTC.", "Europe/Berlin", "Booked 16:00 to 17:00 Berlin time."),
    # a time written with an h or as four digits, labelled by an offset or a zone (defects72)
    ("Booked 16h UTC+2.", "UTC", "Booked 14:00 UTC."),
    ("Booked 16h00 (GMT+2).", "UTC", "Booked 14:00 (UTC)."),
    ("Booked 10 h 00 UTC-4.", "Europe/Berlin", "Booked 16:00 Berlin time."),
    ("Booked 14h UTC.", "Europe/Berlin", "Booked 16:00 Berlin time."),
    ("Booked 1600 UTC+2.", "UTC", "Booked 14:00 UTC."),
    ("Booked 1400 UTC.", "Europe/Berlin", "Booked 16:00 Berlin time."),
    ("Booked 16h-17h Berlin time.", "UTC", "Booked 14:00-15:00 UTC."),
    ("Booked 1600-1700 GMT+2.", "UTC", "Booked 14:00-15:00 UTC."),
    # an hour said without its half of the day: the afternoon's reading where that one is the known instant
    ("Booked for four o'clock UTC+2.", "UTC", "Booked for 14:00 UTC."),
    ("Booked for two o'clock UTC.", "Europe/Berlin", "Booked for 16:00 Berlin time."),
    # a label after the start and a dash, no spaces: the range's other end, not the offset UTC-15
    ("Booked 14:00 UTC-15:00 UTC.", "Europe/Berlin", "Booked 16:00 Berlin time-17:00 Berlin time."),
    ("Booked 14:00 UTC-17:00 CEST.", "America/New_York", "Booked 10:00 New York time-11:00 New York time."),
    ("Booked 16:00 CEST-17:00 CEST.", "UTC", "Booked 14:00 UTC-15:00 UTC."),
    ("Booked 16:00 Berlin time-17:00 Berlin time.", "UTC", "Booked 14:00 UTC-15:00 UTC."),
    ("Booked 10:00 UTC-04:00.", "UTC", "Booked 14:00 UTC."),  # an offset where it names the known instant
])
def test_short_offsets_labelled_ranges_and_mixed_clocks(text: str, asked: str, want: str | None) -> None:
    known = _START | {parse_time("2026-04-15T15:00:00Z")}
    assert in_zone(text, asked, known, None, "America/New_York", _ZONES) == want


@pytest.mark.parametrize("text", [
    # durations, numbers, years, dates, phone numbers: no time of day, whatever is near them
    "A 14h review window opens then.",
    "A 1h30 slot; the room is booked.",
    "Booked for 90m, 1h of it on the demo.",
    "Ticket 1400 is about the UTC+2 outage.",
    "Budget 2026 UTC+2 region.",
    "Due 2026-04-15, call +1 212 1400 UTC.",
    "Report 14h (see page 16h).",
])
def test_what_is_no_time_of_day_is_left(text: str) -> None:
    known = _START | {parse_time("2026-04-15T15:00:00Z")}
    assert in_zone(text, "Europe/Berlin", known, None, "America/New_York", _ZONES) is None


def test_an_unlabelled_end_after_a_labelled_start_is_left() -> None:
    """"14:00 UTC-14:30": the offset UTC-14:30 names nothing and the end has no zone of its own, so nothing is read
    (as on main: which zone the end is in is the reader's guess)."""
    known = _START | {parse_time("2026-04-15T15:00:00Z")}
    assert in_zone("Booked 14:00 UTC-14:30.", "Europe/Berlin", known, None, "America/New_York", _ZONES) is None
