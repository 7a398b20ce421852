"""The rule order probe (`rule_order_probes`): two writes one of which a dynamics rule answers are probed the other
way round only where the task leaves their order open."""

from __future__ import annotations

from typing import Any

import pytest

from tests.defects._core import judge
from tests.defects.undone_by_order import DEFECTS, _pair

_DEFECT = next(d for d in DEFECTS if d.name == "ticket-sync-reimports")


def _codes(spec: dict[str, Any]) -> set[str]:
    return {e.code for e in judge(spec).errors()}


def test_a_rule_undoing_the_other_write_pins_the_reference_order() -> None:
    assert "order_pinned_by_rule" in _codes(_DEFECT.defect_spec())


def test_a_turn_that_orders_the_two_records_leaves_the_order_to_the_task() -> None:
    spec = _DEFECT.defect_spec()
    _, _, _, first, second = _pair(spec)
    spec["turns"][0]["content"] += f" Do {first[2]} first, then {second[2]}."
    assert "order_pinned_by_rule" not in _codes(spec)


def test_an_order_word_about_other_steps_does_not_order_two_records_of_one_set() -> None:
    spec = _DEFECT.defect_spec()
    spec["turns"][0]["content"] += " Then tell me when you are done."
    assert "order_pinned_by_rule" in _codes(spec)


@pytest.mark.parametrize(
    ("text", "ordered"),
    [
        ("Hey, here is the next thing on my list. Please fix the services.", False),
        ("Reassign them to whoever is on call next according to the calendar.", False),
        ("Hand them to the next on-call engineer.", False),
        ("Next week, please tidy the inbox.", False),
        ("Quick favour before my next meeting.", False),
        ("Fix the config. Next, tell Jun.", True),
        ("Fix the config and next post it in #ops.", True),
        ("Fix the config, then tell Jun.", True),
    ],
)
def test_next_orders_steps_only_as_an_adverb(text: str, ordered: bool) -> None:
    """`next` the adjective ("the next thing on my list", "on call next") orders no steps: on main it did, so every
    turn opening with the generators' "here is the next thing on my list" kept the order probe out."""
    from coworkenv.validate._unasked_order import words_order

    assert words_order(text) is ordered
