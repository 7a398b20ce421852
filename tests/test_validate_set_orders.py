"""The static reading of a set's order carried past the set (coworkenv/validate/_set_orders.py, behind
`nondeterministic_check`), unrun and cheap: what carries the order (iterating built-ins, comprehensions, set
operations, dicts and Counters built from a set, itertools, a sort by a key, names bound to them) and what reads it,
against the look-alikes that keep no order (set_order_carried)."""

from __future__ import annotations

import pytest

from coworkenv.validate._entropy_tells import unpinned_randomness
from tests.defects import set_order_carried

_HEAD = "import collections, functools, itertools, json\n"
_S = "{r['name'] for r in rows}"


def _check(expr: str, head: str = _HEAD) -> str:
    return f"{head}\ndef check(state, audit, messages):\n    rows = list(state)\n    return bool({expr})\n"


_CORPUS = [(read, imports) for read, imports, _, _ in set_order_carried._READS.values()]
_CORPUS_TWINS = [(twin, imports) for _, _, twin, imports in set_order_carried._READS.values() if twin is not None]


@pytest.mark.parametrize(("expr", "imports"), [*_CORPUS, *[(e, "") for e in (
    f"list(reversed(list({_S})))[0] == 'a'",
    f"tuple(map(str.lower, {_S}))[:2] == ('a', 'b')",
    f"[*filter(None, {_S})][-1] == 'a'",
    f"list(collections.OrderedDict.fromkeys({_S}).keys())[0] == 'a'",
    f"list({{n: 1 for n in {_S}}}.items())[0][0] == 'a'",
    f"collections.deque({_S}).popleft() == 'a'",
    f"set.union({_S}, {{'x'}}).pop() == 'a'",
    f"({_S} | {{'x'}}).copy().pop() == 'a'",
    f"next(itertools.chain({_S}, ['x'])) == 'a'",
    f"dict(zip({_S}, rows))['a'] is rows[0]",
    f"min(({_S} ^ {{'x'}}), key=str.lower) == 'a'",
    f"json.dumps(dict.fromkeys({_S}))[:5] == '{{\"a\"'",
    "f'{list(set(rows))}' == \"['a']\"",
    f"str(dict.fromkeys({_S})) == \"{{'a': None}}\"",
    f"[n for n in {_S}] == ['a', 'b']",
)]])
def test_carried_order_is_found(expr: str, imports: str) -> None:
    assert unpinned_randomness(_check(expr, _HEAD + imports)) is not None, expr


def test_names_carry_the_order() -> None:
    """A name bound to what carries a set's order carries it (to a fixpoint), and a mapping bound so is read by key."""
    carried = _check("(names := dict.fromkeys(set(rows))) and (firsts := list(names)) and firsts[0] == 'a'")
    assert unpinned_randomness(carried) is not None
    keyed = _check("(names := dict.fromkeys(set(rows))) is not None and names.get('a') is None and "
                   "names['a'] is None")
    assert unpinned_randomness(keyed) is None


@pytest.mark.parametrize(("expr", "imports"), [*_CORPUS_TWINS, *[(e, "") for e in (
    f"len(list(map(str.lower, {_S}))) == 2 and 'a' in dict.fromkeys({_S})",
    f"sorted(map(str.lower, {_S}))[0] == 'a' and sorted({_S}, key=len, reverse=False) is not None",
    f"max({_S}) == 'b' and min({_S} - {{'x'}}) == 'a' and sum(map(len, {_S})) == 2",
    f"dict.fromkeys({_S}) == {{'a': None}} and {{n: 1 for n in {_S}}}['a'] == 1",
    f"collections.Counter({_S})['a'] == 1 and set(map(str.upper, {_S})) == {{'A'}}",
    f"all(n.islower() for n in {_S}) and any(n == 'a' for n in {_S})",
    f"len(list(zip({_S}, {_S}))) == 2 and sorted(enumerate(sorted({_S})))[0] == (0, 'a')",
    "list({1, 2, 3})[0] == 1 and next(iter(map(str, [1, 2]))) == '1'",
)]])
def test_order_free_look_alike_is_left(expr: str, imports: str) -> None:
    assert unpinned_randomness(_check(expr, _HEAD + imports)) is None, expr


def test_a_loop_stopping_at_a_member_is_found_and_one_answering_alike_is_left() -> None:
    """A loop over a set (or what carries its order) that returns what it met, or breaks, depends on the order; one
    whose every return gives the same constant (an `all` written out) does not."""
    def loop(body: str) -> str:
        return f"def check(state, audit, messages):\n    for name in map(str.lower, set(state)):\n{body}" \
               "    return True\n"
    assert unpinned_randomness(loop("        return name == 'x'\n")) is not None
    assert unpinned_randomness(loop("        if name == 'a':\n            return True\n"
                                    "        if name == 'b':\n            return False\n")) is not None
    assert unpinned_randomness(loop("        if name == 'a':\n            break\n")) is not None
    assert unpinned_randomness(loop("        if name not in ('a', 'b'):\n            return False\n")) is None
