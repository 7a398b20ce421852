"""An answer's day by its name or from today (defects118): what `entities.drop_facts` leaves out of a reply, and which
ISO dates such a day may name. (A colleague's request is no longer told by its words, `_QUESTION`, defects127: any
message of the answer's recipient sent before it is one; see tests/defects/unphrased_request_unchecked.py.)"""

from __future__ import annotations

from datetime import date

import pytest

from coworkenv.validate.entities import relative_days, stated_facts

MONDAY = date(2026, 11, 16)


@pytest.mark.parametrize(("fact", "days"), [
    ("Thursday", {date(2026, 11, 12), date(2026, 11, 19), date(2026, 11, 26)}),
    ("next Monday", {date(2026, 11, 9), MONDAY, date(2026, 11, 23), date(2026, 11, 30)}),
    ("tomorrow", {date(2026, 11, 17), date(2026, 11, 18)}),
    ("the day after tomorrow", {date(2026, 11, 18), date(2026, 11, 19)}),
    ("in two weeks", {date(2026, 11, 30), date(2026, 12, 1)}),
    ("in 3 days", {date(2026, 11, 19), date(2026, 11, 20)}),
    ("in a couple of  days", {date(2026, 11, 18), date(2026, 11, 19)}),
])
def test_relative_days_name_the_dates_of_the_episode(fact: str, days: set[date]) -> None:
    assert relative_days(fact, MONDAY, date(2026, 11, 17)) == days


def test_days_are_facts_of_an_answer_and_other_words_are_not() -> None:
    said = "Hi Elif, the renewal is next Thursday, and the review in 3 days; Mondays are busy, so is the monday.com board"
    assert stated_facts(said) == ["next Thursday", "in 3 days"]
    assert relative_days("Thursdays", MONDAY, MONDAY) is None
    assert relative_days("2027-04-19", MONDAY, MONDAY) is None
