"""An answer's day by its name or from today, and a question asked without a question mark (defects118): what
`entities.drop_facts` leaves out of a reply, which ISO dates such a day may name, and which colleague's messages ask
for a fact (`_answered_questions._QUESTION`)."""

from __future__ import annotations

from datetime import date

import pytest

from coworkenv.validate._answered_questions import _QUESTION
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


@pytest.mark.parametrize(("text", "asks"), [
    ("Hi Bilal, please let me know cache_ttl_s of svc-pricing.", True),
    ("Could you send me the escalation code for Bison Hotels.", True),
    ("I need the hotline for Hazel Legal for a call.", True),
    ("Dear Raj, Please confirm the SLA review date. Kind regards", True),
    ("Hi Elif, what's the cost center for project Escarpment.", True),
    ("Do you know the renewal date of the Ibis Homes contract", True),
    ("Can someone review my PR", False),
    ("Thanks, that works for me. Let's keep the customer escalation as planned.", False),
    ("Hi all, I'm out next week; Kenji covers for me.", False),
    ("Notes from today's API review are in the shared drive. Nothing needed from you.", False),
    ("When the deploy finishes I will post the numbers.", False),
])
def test_a_request_for_a_fact_is_a_question(text: str, asks: bool) -> None:
    assert bool(_QUESTION.search(text)) is asks
