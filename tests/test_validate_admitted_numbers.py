"""The admitted-number near misses (`coworkenv.validate._admitted_numbers`): a number written in the reference's
style. Which tolerances make near misses (and which do not) is tested by the corpus: tests/defects/tolerance_admits_other.py
and its twins."""

from __future__ import annotations

import pytest

from coworkenv.checks.text import _NUMBER
from coworkenv.loading import parse_spec
from coworkenv.validate._admitted_numbers import _scales, _written, admitted_alternatives
from tests.defects._core import base_spec


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



@pytest.mark.parametrize(("term", "out"), [
    (["57", "0"], ["Moved 15 x GLOVE-96, 0 x WRAP-43 from wh-zurich to store-tbilisi."]),  # the shelf's stock before
    (["57", "57.0"], []),  # one value spelled twice
    (["57", "56.6"], []),  # one rounding of it
    (["57", "fifty-seven"], []),  # a word is no other number
    (["57", "9173"], []),  # a number the world does not offer
])
def test_a_terms_other_number_is_stated_where_the_world_offers_it(term: list[str], out: list[str]) -> None:
    """defects94: a term's alternatives of other values (`["57", "0"]`) are two answers, tried in the reply."""
    spec = base_spec("synth:inventory_restock_policy@1")
    check = next(c for c in spec["checks"] if c["id"] == "reply-moves")
    check["rule"]["all_of"] = [term]
    said = "Moved 15 x GLOVE-96, 57 x WRAP-43 from wh-zurich to store-tbilisi."
    assert [new for new, _ in admitted_alternatives(parse_spec(spec), 0, said)] == out
