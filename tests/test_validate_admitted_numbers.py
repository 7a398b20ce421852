"""The admitted-number near misses (`coworkenv.validate._admitted_numbers`): a number written in the reference's
style. Which tolerances make near misses (and which do not) is tested by the corpus: tests/defects/tolerance_admits_other.py
and its twins."""

from __future__ import annotations

import pytest

from coworkenv.checks.text import _NUMBER
from coworkenv.validate._admitted_numbers import _scales, _written


@pytest.mark.parametrize(("value", "digits", "expected", "scale", "out"), [
    (95947, "87,936", 87936, 1, "95,947"),  # grouped with commas
    (95947, "87936", 87936, 1, "95947"),  # bare
    (95947, "87.936", 87936, 1, "95.947"),  # grouped the European way
    (95947, "87 936", 87936, 1, "95 947"),  # grouped with a space
    (1234.5, "1.200,5", 1200.5, 1, "1.234,5"),  # a decimal comma
    (13.4, "12.6", 12.6, 1, "13.4"),  # a decimal
    (12.35, "12.5", 12.5, 1, "12.35"),  # more decimals than the reference writes
    (95947, "87.936", 87936, 1000, "95.947"),  # "87.936k"
    (0.4, "37.5", 0.375, 0.01, "40.0"),  # "37.5%" for a share of 0.375
])
def test_written_in_the_references_style(value: float, digits: str, expected: float, scale: float, out: str) -> None:
    assert _written(value, digits, expected, scale) == out


def test_a_share_is_read_as_written_and_as_its_fraction() -> None:
    m = _NUMBER.search("a breach rate of 37.5 % this week")
    assert m is not None and _scales(m, "a breach rate of 37.5 % this week") == (1.0, 0.01)
    m = _NUMBER.search("41.6k in total")
    assert m is not None and _scales(m, "41.6k in total") == (1000.0,)

