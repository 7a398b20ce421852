"""The list-item near misses (`validate/_sibling_facts.py`): an item of a list the checks read only some of is
restated wrongly or left out; one fact's two values, an aside, a number beside words or a sentence's parts are no
list."""

from __future__ import annotations

import re

import pytest

from coworkenv.validate._mutation_core import Mutation
from coworkenv.validate._sibling_facts import list_items, unread_siblings
from coworkenv.validate.mutation_gate import _unread_items


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
    ("Hi Elena, Marcus asked me to add you.", "Elena"),  # the one addressed, then a clause's subject
    ("Moved 'Review Rosa / Sanna' to 12:00 and told Sanna.", "Sanna"),  # one title's names
    ("kwame,Asia/Singapore\nchloe,Europe/Berlin\n", "Singapore"),  # a zone's parts
])
def test_no_list_no_near_miss(text: str, read: str) -> None:
    assert unread_siblings(text, _read(read)) == []


def test_an_unread_name_of_a_list_is_left_out() -> None:
    text = "I updated the event and emailed Marcus, Aisha and Tom."
    assert unread_siblings(text, _read("Marcus", "Aisha")) == [("left out", "I updated the event and emailed Marcus, Aisha.")]
    assert unread_siblings(text, _read("Marcus", "Tom")) == [("left out", "I updated the event and emailed Marcus and Tom.")]
    assert unread_siblings("Invited Lucas Lopez and Lucas Kowalski.", _read("Lopez")) == [
        ("left out", "Invited Lucas Lopez.")]
    assert unread_siblings(text, _read("Marcus", "Aisha", "Tom")) == []
    bullets = "Attendees:\n- Lucas Lopez\n- Maria Kim\n"
    assert [[bullets[a:b] for a, b in run] for run in list_items(bullets)] == [["Lucas Lopez", "Maria Kim"]]


def _probe(item: str) -> Mutation:
    return Mutation("text_drop", "reference[0].steps[1].say", f"turn 0: the answer with {item!r} left out of a list",
                    [], code="sibling_unchecked", group="reference[0].steps[1].say (list 0)")


def test_a_list_item_probe_that_passes_beside_one_that_fails_is_unchecked() -> None:
    """A Python grader's reads are unknown: leaving one item out fails it, so the grader reads the list, and
    another item whose leaving out passes is unchecked; a list no probe of which fails is not graded."""
    first, second = _probe("GLOVE-96"), _probe("WRAP-43")
    errors = _unread_items({first.group: [(first, False), (second, True)]})
    assert [(e.code, e.path) for e in errors] == [("sibling_unchecked", second.path)]
    assert "WRAP-43" in errors[0].message and "GLOVE-96" in errors[0].message
    assert _unread_items({first.group: [(first, True), (second, True)]}) == []
    assert _unread_items({first.group: [(first, False), (second, False)]}) == []
