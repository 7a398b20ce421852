"""Which turns' replies a Python grader reads (`_check_reads.turns_read`), and so which turns' answers are content."""

from __future__ import annotations

import pytest

from coworkenv.validate._check_reads import turns_read

_HEAD = "def check(state, audit, messages):\n"


@pytest.mark.parametrize(("body", "turns"), [
    ("    text = ' '.join(m['text'] for m in messages if m['turn'] == 0)\n    return 'x' in text\n", {0}),
    ("    text = ' '.join(m['text'] for m in messages if m['turn'] == 1 and not m.get('aside'))\n"
     "    return 'x' in text\n", {1}),
    ("    return any('x' in m['text'] for m in messages if 0 == m.get('turn'))\n", {0}),
    ("    a = [m for m in messages if m['turn'] in (0, 2)]\n    return bool(a)\n", {0, 2}),
    ("    a = [m for m in messages if m['turn'] == 0]\n    b = [m for m in messages if m['turn'] == 1]\n"
     "    return bool(a and b)\n", {0, 1}),
    ("    return state is not None\n", set()),
])
def test_turns_kept_by_a_comprehension(body: str, turns: set[int]) -> None:
    assert turns_read(_HEAD + body) == frozenset(turns)


@pytest.mark.parametrize("body", [
    "    return any('x' in m['text'] for m in messages)\n",  # every turn
    "    return 'x' in messages[-1]['text']\n",  # an index
    "    msgs = messages\n    return any(m['turn'] == 0 for m in msgs)\n",  # an alias
    "    for m in messages:\n        if m['turn'] == 0:\n            return 'x' in m['text']\n    return False\n",
    "    return any('x' in m['text'] for m in messages if m['turn'] == 0 or m['turn'] > 1)\n",  # not a plain keep
    "    t = 0\n    return any('x' in m['text'] for m in messages if m['turn'] == t)\n",  # a turn not written
])
def test_any_other_use_reads_every_turn(body: str) -> None:
    assert turns_read(_HEAD + body) is None
