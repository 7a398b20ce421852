"""The zone replay's reading of a time labelled by an abbreviation or a fixed UTC offset (`_user_zones.in_zone`)."""

from __future__ import annotations

import pytest

from coworkenv.validate._user_zones import in_zone
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
