"""The static reading of a set's order carried past the set (coworkenv/validate/_set_orders.py, behind
`nondeterministic_check`), unrun and cheap: what carries the order (iterating built-ins, comprehensions, set
operations, dicts and Counters built from a set, itertools, a sort by a key, names bound to them) and what reads it,
against the look-alikes that keep no order (set_order_carried)."""

from __future__ import annotations

import pytest

from coworkenv.validate._entropy_tells import unpinned_randomness
from tests.defects import set_order_carried, set_order_deep, set_order_leftover

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


_FIRST = "def first(xs):\n    return list(xs)[0]\n"
_NAMES = "def names(rows):\n    return {r['name'] for r in rows}\n"
_AS_LIST = "def as_list(xs):\n    out = [x for x in xs]\n    return out\n"
_PRICES = "prices = {'a': 0.1, 'b': 0.2, 'c': 0.3}\n"


@pytest.mark.parametrize(("expr", "defs"), [
    (f"first({_S}) == 'a'", _FIRST),
    (f"first(xs={_S}) == 'a'", _FIRST),
    ("list(names(rows))[0] == 'a'", _NAMES),
    ("','.join(names(rows)) == 'a,b'", _NAMES),
    (f"as_list({_S})[0] == 'a'", _AS_LIST),
    (f"head({_S}) == 'a'", "def head(xs):\n    for x in xs:\n        return x\n"),
    (f"(lambda xs: ','.join(xs))({_S}) == 'a,b'", ""),
    (f"pick({_S}) == 'a'", "pick = lambda xs: next(iter(xs))\n"),
    (f"later(0, {_S}) == 'a'", "def later(n, xs):\n    return sorted(xs, key=len)[n]\n"),
])
def test_order_read_through_the_checks_own_function_is_found(expr: str, defs: str) -> None:
    """A set's order given to a function or lambda the check defines, which reads it (an index, a join, a loop
    that returns its first member), hands it back, or a function that returns a set of its own making."""
    assert unpinned_randomness(_check(expr, _HEAD + defs)) is not None, expr


@pytest.mark.parametrize(("expr", "defs"), [
    (f"first(sorted({_S})) == 'a' and first(rows) is rows[0]", _FIRST),
    ("len(names(rows)) == 2 and 'a' in names(rows) and sorted(names(rows))[0] == 'a'", _NAMES),
    (f"sorted(as_list({_S}))[0] == 'a' and len(as_list({_S})) == 2", _AS_LIST),
    (f"has({_S}, 'a')", "def has(xs, x):\n    for y in xs:\n        if y == x:\n            return True\n"
                        "    return False\n"),
    (f"(lambda xs: len(xs))({_S}) == 2 and (lambda xs: sorted(xs)[0])({_S}) == 'a'", ""),
    (f"count({_S}) == 2", "count = lambda xs: sum(1 for _ in xs)\n"),
])
def test_order_free_use_in_the_checks_own_function_is_left(expr: str, defs: str) -> None:
    assert unpinned_randomness(_check(expr, _HEAD + defs)) is None, expr


@pytest.mark.parametrize("expr", [
    f"sum(prices[n] for n in {_S}) == 0.6",
    f"0.6 != sum(map(prices.get, {_S}))",
    f"sum(map(prices.get, {_S}), 0.0) == total",
    f"sum([float(len(n)) for n in {_S}]) == total",
    "sum(dict.fromkeys(set(rows), 0.1).values()) == 0.30000000000000004",
])
def test_float_sum_in_a_sets_order_compared_exactly_is_found(expr: str) -> None:
    """Floats added in a set's order: float addition is not associative, so an exact comparison follows the order."""
    assert unpinned_randomness(_check(expr, _HEAD + _PRICES + "total = 0.6\n")) is not None, expr


@pytest.mark.parametrize("expr", [
    f"sum(len(n) for n in {_S}) == 5 and sum(map(len, {_S})) == 5",
    f"round(sum(prices[n] for n in {_S}), 2) == 0.6 and abs(sum(map(prices.get, {_S})) - 0.6) < 1e-9",
    f"sum(prices[n] for n in sorted({_S})) == 0.6 and math.fsum(prices[n] for n in {_S}) == 0.6",
    "sum({r['price'] for r in rows}) == 0.6 and sum({0.1, 0.2, 0.3}) == 0.6",
    f"sum(prices[n] for n in {_S}) > 0.5",
    "sum(r['price'] for r in rows) == 0.6",
])
def test_order_free_sum_is_left(expr: str) -> None:
    """Whole numbers (any order adds them alike), a rounded or tolerant comparison, a sorted order, `math.fsum`
    (rounded once), a set of the numbers themselves (it iterates by their unsalted hashes), an ordering test, and a
    sum over the state's own rows."""
    assert unpinned_randomness(_check(expr, _HEAD + "import math\n" + _PRICES)) is None, expr


_DEEP = [(read, imports) for read, imports, _, _ in set_order_deep._READS.values()]
_DEEP_TWINS = [(twin, imports) for _, _, twin, imports in set_order_deep._READS.values() if twin is not None]


@pytest.mark.parametrize(("expr", "imports"), _DEEP)
def test_order_carried_deeper_is_found(expr: str, imports: str) -> None:
    """set_order_deep: the order through two of the check's own functions, methods, properties, generators,
    unpacking, loops that fill a list or text, deques, heapq by a key, seeded choices, serialisers, formatting,
    print, csv, statistics.mode, itemgetter."""
    assert unpinned_randomness(_check(expr, _HEAD + imports)) is not None, expr


@pytest.mark.parametrize(("expr", "imports"), [*_DEEP_TWINS, *[(e, "") for e in (
    f"[n for n in {_S} if not n] == [] and len([*{_S}]) == 2 and print(*{_S}) is None",
    "(pickle := __import__('pickle')) and pickle.loads(pickle.dumps(set(rows))) == set(rows)",
)], *[("ok", body) for body in (
    f"errors = []\nfor n in {_S}:\n    if not n:\n        errors.append(n)\nok = errors == [] and not errors\n",
    "total = 0\nfor n in {r['size'] for r in rows}:\n    total += n\nok = total == 10\n",
    f"count = 0\nfor n in {_S}:\n    count += 1\nok = count == 2\n",
    f"text = ''\nfor n in sorted({_S}):\n    text += n\nok = text[:1] == 'a'\n",
    f"a, b = sorted({_S})\nfor x, y in [(1, 2)]:\n    pass\nok = a == 'a'\n",
    "class Tags:\n    pass\n\n\nt = Tags()\nt.names = {'a'}\nother = [{'names': ['x']}]\nok = other[0]['names'][0] == 'x'\n",
)]])
def test_order_free_look_alike_of_a_deeper_carrier_is_left(expr: str, imports: str) -> None:
    """The same routes given a sorted list, or used for what the order does not decide: the size, emptiness, a
    whole-number total, a count, a pickle read back at once, another object's attribute of the same name."""
    assert unpinned_randomness(_check(expr, _HEAD + imports)) is None, expr


@pytest.mark.parametrize("body", [
    f"expected = 0.6\nok = sum(prices[n] for n in {_S}) == expected\n",
    f"total = sum(prices[n] for n in {_S})\nok = total == 0.6\n",
    f"total = 0.0\nfor n in {_S}:\n    total += prices[n]\nok = total == 0.6\n",
    f"halves = {{n: len(n) / 2 for n in {_S}}}\nok = sum(halves[n] for n in {_S}) == 0.6\n",
])
def test_float_sum_compared_through_a_name_is_found(body: str) -> None:
    """Floats added in a set's order and compared exactly where a name holds the sum, the float or the prices."""
    assert unpinned_randomness(_check("ok", _HEAD + _PRICES + body)) is not None, body


@pytest.mark.parametrize("body", [
    f"expected = 3\nok = sum(len(n) for n in {_S}) == expected\n",
    f"total = sum(prices[n] for n in {_S})\nok = round(total, 6) == 0.6\n",
    f"total = 0.0\nfor n in sorted({_S}):\n    total += prices[n]\nok = total == 0.6\n",
])
def test_order_free_sum_through_a_name_is_left(body: str) -> None:
    assert unpinned_randomness(_check("ok", _HEAD + _PRICES + body)) is None, body


_LEFTOVER = [(read, imports) for read, imports, _, _ in set_order_leftover._READS.values()]
_LEFTOVER_TWINS = [(twin, imports) for _, _, twin, imports in set_order_leftover._READS.values() if twin is not None]


@pytest.mark.parametrize(("expr", "imports"), [*_LEFTOVER, *[(e, "") for e in (
    f"[name for name in {_S}] and [(last := n) for n in {_S}] and last == 'a'",
    f"[y for xs in ({_S}, ['x']) for y in xs][0] == 'a'",
    f"next(iter(*[{_S}])) == 'a'",
    f"(pick := min) and pick({_S}, key=len) == 'a'",
)], *[("ok", body) for body in (
    f"for n in {_S}:\n    pass\nok = n == 'a'\n",
    f"for n in {_S}:\n    upper = n.upper()\nok = upper == 'A'\n",
    f"for xs in [{_S}]:\n    for x in xs:\n        break\nok = x == 'a'\n",
    f"def first(xs, *, order={_S}):\n    return list(order)[0]\n\n\nok = first(1) == 'a'\n",
    f"as_list = list\nok = as_list({_S})[0] == 'a'\n",
)]])
def test_order_left_over_is_found(expr: str, imports: str) -> None:
    """set_order_leftover: the last member a loop or a comprehension's walrus met, read after it; a set spread from
    a display or iterated again from one; a default argument; a built-in under a name of the check's."""
    assert unpinned_randomness(_check(expr, _HEAD + imports)) is not None, expr


@pytest.mark.parametrize(("expr", "imports"), [*_LEFTOVER_TWINS, *[(e, "") for e in (
    f"[y for xs in [sorted({_S})] for y in xs][0] == 'a'",
)], *[("ok", body) for body in (
    f"def first(xs=sorted({_S})):\n    return next(iter(xs))\n\n\nok = first() == 'a'\n",
    f"step = next\nit = iter\nok = step(it(sorted({_S}))) == 'a'\n",
    f"for n in {_S}:\n    pass\nfor n in sorted({_S}):\n    pass\nok = n == 'b'\n",
    f"for n in {_S}:\n    if not n:\n        ok = False\nok = True\n",
    f"total = 0\nbest = ''\nfor n in {_S}:\n    total = total + len(n)\n    best = max(best, n)\n"
    "ok = total == 2 and best == 'b'\n",
    f"for n in {_S}:\n    pass\nok = [n for n in ['a']] == ['a'] and (lambda n: n)(1) == 1\n",
    f"for xs in [{_S}]:\n    if len(xs) != 2:\n        ok = False\nok = all(y for xs in [{_S}] for y in xs)\n",
    f"def first(xs=sorted({_S})):\n    return xs[0]\n\n\nok = first() == 'a' and first(['b']) == 'b'\n",
    f"size = len\nok = size({_S}) == 2 and sorted(list(zip(*[sorted({_S})]))) == [('a',), ('b',)]\n",
)]])
def test_order_free_look_alike_of_a_leftover_is_left(expr: str, imports: str) -> None:
    """The loop's name bound again over the sorted members, a constant bound in a loop, a comprehension's or a
    lambda's own name, a size or a total over a display holding a set, a sorted default, `len` under another name."""
    assert unpinned_randomness(_check(expr, _HEAD + imports)) is None, expr


def test_function_reading_a_module_name_of_its_own_is_left() -> None:
    """A function whose parameter or local is named like the loop's leftover reads its own value."""
    head = f"{_HEAD}for n in {{'a', 'b'}}:\n    pass\n\n\ndef one(n):\n    return n\n\n\n" \
        "def two():\n    n = 'x'\n    return n\n"
    assert unpinned_randomness(_check("one('a') == 'a' and two() == 'x'", head)) is None


@pytest.mark.parametrize("expr", [
    f"min({_S}, key=lambda n: (len(n), n)) == 'a'",
    f"sorted({_S}, key=lambda n: (-len(n), n))[0] == 'a'",
    f"max({_S}, key=lambda n: n) == 'b'",
    f"heapq.nlargest(1, {_S}, key=lambda n: (n.lower(), n))[0] == 'b'",
])
def test_sort_by_a_key_holding_the_member_is_left(expr: str) -> None:
    """A key that hands back the member itself, or a tuple holding it, ties no two members: the result is the same
    in every order the set iterates in (main rejected these sound checks)."""
    assert unpinned_randomness(_check(expr, _HEAD + "import heapq\n")) is None, expr


@pytest.mark.parametrize("expr", [
    f"min({_S}, key=lambda n: (len(n), n.lower())) == 'a'",
    f"sorted({_S}, key=lambda n, m=0: n)[0] == 'a'",
])
def test_sort_by_a_key_that_can_tie_is_found(expr: str) -> None:
    """A tuple key without the member (`n.lower()` ties `A` and `a`), a key of more than one parameter."""
    assert unpinned_randomness(_check(expr, _HEAD)) is not None, expr


_POOL = "_POOL = {'a', 'b'}\n"


@pytest.mark.parametrize("body", [
    f"class C:\n    for n in {_S}:\n        kept = n.strip()\n\n\nok = C().kept == 'a'\n",
    f"class C:\n    for n in {_S}:\n        pass\n\n    def get(self):\n        return self.n\n\n\nok = C().get() == 'a'\n",
    f"pick = functools.partial(next)\nok = pick(iter({_S})) == 'a'\n",
    f"ok = functools.partial(sorted, key=len)({_S})[0] == 'a'\n",
    f"{_POOL}take = _POOL.pop\nok = take() == 'a'\n",
    f"ok = next(iter(iter({_S}).__next__, 'z')) == 'a'\n",
    f"{_POOL}ok = list(iter(functools.partial(next, iter(_POOL)), 'z'))[0] == 'a'\n",
    f"ok = getattr({_S}, 'pop')() == 'a'\n",
    f"ok = set.pop({_S}) == 'a' or type({_S}).pop({_S}) == 'a'\n",
    f"ok = dict.popitem(dict.fromkeys({_S}))[0] == 'a'\n",
    f"ok = sum(([x] for x in {_S}), [])[0] == 'a'\n",
])
def test_order_left_in_a_class_or_handed_out_by_a_call_is_found(body: str) -> None:
    """set_order_leftover: a class body's loop read as the class's attribute; `next` or a sort through
    `functools.partial`; a bound `pop` or `__next__` called, or handed to `iter(f, sentinel)`."""
    assert unpinned_randomness(_check("ok", _HEAD + body)) is not None, body


@pytest.mark.parametrize("body", [
    f"class C:\n    for n in {_S}:\n        pass\n    n = 'b'\n\n\nok = C.n == 'b'\n",
    f"class C:\n    for n in sorted({_S}):\n        pass\n\n\nok = C.n == 'b'\n",
    f"ok = functools.partial(next, iter(sorted({_S})))() == 'a'\n",
    f"take = sorted({_S}).pop\nok = take() == 'b' and functools.partial(len)({_S}) == 2\n",
    f"ok = sorted({_S}, key=str)[0] == 'a' and min({_S}, key=repr) == 'a' and max({_S}, key=ascii) == 'b'\n",
    f"ok = getattr(sorted({_S}), 'pop')() == 'b' and set.pop({{1, 2}}) == 1 and len(getattr({_S}, 'copy')()) == 2\n",
    f"ok = sum(len(x) for x in {_S}) == 2 and sum(([x] for x in sorted({_S})), [])[0] == 'a'\n",
    "import operator\nok = operator.methodcaller('upper')('a') == 'A'\n",
])
def test_order_free_look_alike_of_a_class_loop_or_a_partial_is_left(body: str) -> None:
    """A class's name bound again, a sorted loop or partial, a sorted list's `pop`, and a sort by the member's own
    text (`key=str`: no two strings tie; main rejected this sound check)."""
    assert unpinned_randomness(_check("ok", _HEAD + body)) is None, body


def test_sort_by_a_text_key_of_the_checks_own_can_tie() -> None:
    """`str` bound by the check to another callable is no longer the member's own text."""
    assert unpinned_randomness(_check(f"sorted({_S}, key=str)[0] == 'a'", _HEAD + "str = len\n")) is not None
