"""The list-item near misses (`validate/_sibling_facts.py`): an item of a list the checks read only some of is
restated wrongly or left out; one fact's two values, an aside, a number beside words or a sentence's parts are no
list."""

from __future__ import annotations

import re

import pytest

from coworkenv.validate._sibling_facts import unread_siblings


def _read(*terms: str) -> list[re.Pattern[str]]:
    return [re.compile(re.escape(t), re.IGNORECASE) for t in terms]


def test_an_unread_item_beside_a_read_one_is_restated_wrongly() -> None:
    text = "The P1 tickets that breached are SUP-2204 (Okapi, 47 min) and SUP-2209 (Lumina, 38 min)."
    assert unread_siblings(text, _read("SUP-2204")) == [("stated wrongly", text.replace("SUP-2209", "SUP-3310"))]
    assert unread_siblings(text, _read("SUP-2204", "SUP-2209")) == []  # every item read
    assert unread_siblings(text, _read("Okapi")) == []  # no item read: the list is not what the checks want


def test_a_file_row_the_checks_skip_is_restated_wrongly() -> None:
    csv = "priority,tickets\np1,4\np2,5\np3,5\n"
    rows = [re.compile(rf"(?m)^{r}$") for r in ("p1,4", "p3,5")]
    assert unread_siblings(csv, rows) == [("stated wrongly", csv.replace("p2,5", "p3,6"))]


def test_a_part_of_a_list_whose_name_is_unread_is_left_out() -> None:
    text = "Added: memo due 2026-06-07; shortlist due 2026-06-04; checklist due 2026-06-05"
    assert unread_siblings(text, _read("memo", "shortlist")) == [
        ("left out", "Added: memo due 2026-06-07; shortlist due 2026-06-04")]


@pytest.mark.parametrize(("text", "read"), [
    ("Moved the sync from 14:00 to 15:00, as asked.", "15:00"),  # one fact's old and new value
    ("Rolled back to v2.3.0; v2.3.1 was the bad release.", "v2.3.0"),  # an aside, not an item
    ("source: config svc-pricing@3; svc-pricing@4 was rolled back", "svc-pricing@3"),
    ("16 tickets, 11 resolved, 6 breaches.", "16"),  # numbers beside words: read as numbers, not as names
    ("Hi Hamza, access granted.", "granted"),  # a sentence's parts
])
def test_no_list_no_near_miss(text: str, read: str) -> None:
    assert unread_siblings(text, _read(read)) == []
