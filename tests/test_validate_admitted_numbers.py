"""The admitted-number near misses (`coworkenv.validate._admitted_numbers`): a number written in the reference's
style, and none made where the tolerance admits no other value the world offers."""

from __future__ import annotations

import pytest

from coworkenv.validate._admitted_numbers import _written


@pytest.mark.parametrize(("value", "digits", "expected", "scale", "out"), [
    (95947, "87,936", 87936, 1, "95,947"),  # grouped with commas
    (95947, "87936", 87936, 1, "95947"),  # bare
    (95947, "87.936", 87936, 1, "95.947"),  # grouped the European way
    (95947, "87 936", 87936, 1, "95 947"),  # grouped with a space
    (1234.5, "1.200,5", 1200.5, 1, "1.234,5"),  # a decimal comma
    (13.4, "12.6", 12.6, 1, "13.4"),  # a decimal
    (12.35, "12.5", 12.5, 1, "12.35"),  # more decimals than the reference writes
    (95947, "87.936", 87936, 1000, "95.947"),  # "87.936k"
])
def test_written_in_the_references_style(value: float, digits: str, expected: float, scale: float, out: str) -> None:
    assert _written(value, digits, expected, scale) == out
