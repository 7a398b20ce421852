"""Two readings of a date-time (defects68): the near misses a year and a month later for a written date-time that a
check reads by a digit class (`_date_parts.date_part_shifts`), and the answer without its clock times where the request
asks for the time by a generic word (`_asked_facts._without_times`)."""

from __future__ import annotations

import pytest

from coworkenv.loading import parse_spec
from coworkenv.validate._asked_facts import _without_times
from coworkenv.validate._date_parts import date_part_shifts
from coworkenv.validate.mutations import write_steps
from coworkenv.world import parse_time
from tests.defects._core import base_spec, check, cond


@pytest.mark.parametrize(("op", "value", "moved"), [
    ("matches", r"^\d{4}-06-07T12:00:00Z$", ["a year later"]),
    ("matches", r"^2026-\d{2}-07T12:00:00Z$", ["a month later"]),
    ("matches", r"^\d{4}-\d\d-07T12:00", ["a year later", "a month later"]),
    ("contains", "-06-07T12:00:00Z", ["a year later"]),
    ("matches", r"^2026-06-07T12:00:00Z$", []),  # pinned whole
    ("matches", r"T12:00:00Z$", []),  # reads no date (the day later passes it too: the day near miss's case)
    ("equals", "2026-06-07T12:00:00Z", []),
])
def test_a_date_read_by_a_digit_class_is_moved_a_year_and_a_month(op: str, value: str, moved: list[str]) -> None:
    raw = base_spec("synth:todo_track_mail_requests@1")
    cond(check(raw, "task-msg-224"), "due").update(op=op, value=value)
    spec = parse_spec(raw)
    found = date_part_shifts(spec, write_steps(spec.reference))
    assert [m.description.rsplit("(", 1)[1].rstrip(")") for m in found] == moved
    assert all("'2026-06-07T07:00:00-05:00' -> " in m.description for m in found)


_AT = {parse_time("2026-11-03T09:30:00Z")}
_ZONES = {"UTC", "Asia/Dubai", "Asia/Kolkata"}


@pytest.mark.parametrize(("text", "request_", "want"), [
    ("Booked at 2026-11-03T13:30:00+04:00 (2026-11-03T09:30:00Z).", "Tell me the time you picked.",
     ("Booked at 2026-11-03 (2026-11-03).", ["T13:30:00+04:00", "T09:30:00Z"])),
    ("Booked for 13:30 your time (09:30 UTC, 15:00 in Kolkata).", "Tell me which slot you chose.",
     ("Booked for  your time ( UTC,  in Kolkata).", ["13:30", "09:30", "15:00"])),
    ("Booked for 1:30 pm on 3 November.", "When is it? Let me know.", ("Booked for  on 3 November.", ["1:30 pm"])),
    ("Booked for 13:30 your time.", "Tell me who you invited.", None),  # no time asked
    ("Booked for 14:30 your time.", "Tell me the time you picked.", None),  # no written instant's clock
])
def test_the_time_asked_by_a_generic_word_is_left_out(text: str, request_: str,
                                                       want: tuple[str, list[str]] | None) -> None:
    assert _without_times(text, request_, _AT, _ZONES) == want
