"""Set order carried: a Python check fails one correct agent in a thousand at random, by the order a set of strings
iterates in (their hashes, salted afresh in every `python -I` run of the sandbox) carried past the set before it is
read: its first member reached through `dict.fromkeys`, `map`, `filter`, `itertools.islice` or a generator, a set
operation's result popped (`(s - t).pop()`, `s.union(t).pop()`), a dict built from it popped (`popitem()`), its list's
`.index()`, its members joined from a generator or `map`, paired with positions (`enumerate`, `zip` with a range), its
ties under a key (`max(s, key=len)`, `sorted(s, key=len)[-1]`, `Counter(s).most_common(1)`), folded in turn
(`functools.reduce`), its list's JSON text. address_read's reading named a positional read of the set itself only
(`list(s)[0]`, `next(iter(s))`, `s.pop()`, `','.join(s)`); the probes neither pin nor move a string's hash, so every
probe run sees a check that always passes (nearly: one in a thousand per run), and main accepted every defect here.

The sound twins are the same Python check without the read, and look-alikes that use the carried set for what it is:
membership of `dict.fromkeys(s)`, `sum(map(len, s))`, a sorted join, a sorted difference, `max(s)` without a key, a
`Counter`'s count by key, the JSON text of the sorted list.

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading (`coworkenv/validate/_set_orders.py`) follows
what carries a set's order (the iterating built-ins, comprehensions and generators over it, set operations, dicts and
`Counter`s built from it, `itertools`, a sort by a key, names bound to any of them) to what reads it (an index, a cut,
`.index()`, `next`, `pop`/`popitem`, `join`, its text, a comparison of the sequence, `enumerate`, `zip` with another
iterable, `min`/`max` by a key, `reduce`, `most_common`).

Added 2026-12-05 (defects34): the order carried through a function or lambda the check defines (`def first(xs):
return list(xs)[0]` given a set, a function returning a set of its own making, a lambda joining or taking the first
member); main accepted these 4. The twins give the same functions a sorted list, or ask only the set's size.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "set_order_carried"
DETECTION = (
    "read the check unrun and follow a set's order (salted string hashes) through what carries it (map, filter, zip, "
    "enumerate, dict.fromkeys, comprehensions, set operations, Counter, itertools, a sort by a key) to a read that "
    "depends on it (an index, next, pop, join, its text, ties under a key, reduce); the probes neither pin nor move it"
)

_S = "{str(i) for i in range(1000)}"
_C, _F, _I, _J = "import collections\n", "import functools\n", "import itertools\n", "import json\n"
_FIRST = "def first(xs):\n    return list(xs)[0]\n"
_DIGITS = f"def digits():\n    return {_S}\n"
# name: (the read, imports, the look-alike that uses the carried set for what it is or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "fromkeys-first": (f"list(dict.fromkeys({_S}))[0] != '999'", "", f"'999' in dict.fromkeys({_S})", ""),
    "enumerate-position": (f"dict(enumerate({_S}))[0] != '999'", "", None, ""),
    "map-next": (f"next(map(str.upper, {_S})) != '999'", "", f"sum(map(len, {_S})) == 2890", ""),
    "zip-range": (f"list(zip({_S}, range(1)))[0][0] != '999'", "", None, ""),
    "generator-join": (f"not ','.join(x for x in {_S}).startswith('999,')", "",
                       f"','.join(sorted(x for x in {_S})).startswith('0,1,')", ""),
    "difference-pop": (f"({_S} - {{'0'}}).pop() != '999'", "", f"sorted({_S} - {{'0'}})[0] == '1'", ""),
    "union-pop": (f"{_S}.union({{'x'}}).pop() != '999'", "", None, ""),
    "max-by-key": (f"max({_S}, key=len) != '999'", "", f"max({_S}) == '999'", ""),
    "sorted-by-key-last": (f"sorted({_S}, key=len)[-1] != '999'", "", None, ""),
    "dict-comprehension-popitem": (f"{{k: 0 for k in {_S}}}.popitem()[0] != '999'", "", None, ""),
    "counter-most-common": (f"collections.Counter({_S}).most_common(1)[0][0] != '999'", _C,
                            f"collections.Counter({_S})['999'] == 1", _C),
    "list-index": (f"list({_S}).index('999') != 0", "", None, ""),
    "reduce-concatenated": (f"functools.reduce(lambda a, b: a + ',' + b, {_S})[:4] != '999,'", _F, None, ""),
    "islice-next": (f"next(itertools.islice({_S}, 1)) != '999'", _I, None, ""),
    "json-of-list": (f"json.dumps(list({_S}))[2:5] != '999'", _J, f"json.dumps(sorted({_S}))[2:5] == '0\",'", _J),
    "filter-next": (f"next(filter(None, {_S})) != '999'", "", None, ""),
    "bound-fromkeys": (f"(keys := dict.fromkeys({_S})) is not None and next(iter(keys)) != '999'", "", None, ""),
    # through a function or lambda the check defines (defects34)
    "own-function-first": (f"first({_S}) != '999'", _FIRST, f"first(sorted({_S})) == '0'", _FIRST),
    "own-function-makes-set": ("list(digits())[0] != '999'", _DIGITS, "len(digits()) == 1000", _DIGITS),
    "lambda-join": (f"(lambda xs: ','.join(xs))({_S})[:4] != '999,'", "",
                    f"(lambda xs: ','.join(sorted(xs)))({_S})[:2] == '0,'", ""),
    "bound-lambda-next": (f"pick({_S}) != '999'", "pick = lambda xs: next(iter(xs))\n", None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, "a set's order (its strings' salted hashes) carried past the set and read",
                        start=1)
