"""Set order leftover: a Python check fails one correct agent in a thousand at random, by the order a set of strings
iterates in (their hashes, salted afresh in every `python -I` run of the sandbox), read where the readings of
set_order_carried and set_order_deep did not look: the last member a loop met, read after it (`for x in s: pass`,
then `x`; a name the loop's body binds from it, `kept = x.strip()`; a walrus in a comprehension, `[(seen := x) for x
in s]`, then `seen`), a set given whole as the one member of a display and spread or iterated again (`zip(*[s])`,
`[y for xs in [s] for y in xs]`, `for xs in [s]: for x in xs: break`), a function's default argument (`def
first(xs=s): return next(iter(xs))`, called `first()`) and a built-in called under a name of the check's (`step =
next`, `it = iter`, `step(it(s))`); and (defects46) a class body's loop, whose last member is left as the class's
attribute (`class H: for last in s: pass`, read as `H.last`), `next` through `functools.partial` (`partial(next,
iter(s))()`), a bound `pop` handed to `iter(f, sentinel)`, which calls it for the members in turn, and `pop` by
another spelling (`operator.methodcaller('pop')(s)`). The probes neither pin nor move a string's hash, so every
probe run sees a check that always passes (nearly: one in a thousand per run), and main accepted every defect here.

The sound twins are the same Python check without the read, a look-alike whose loop's name is bound again by a
loop over the sorted members before it is read, and a sort by `key=str` (a string's own text ties no two strings;
main rejected it as a tie) (the reading's other look-alikes, a sorted default, the aliased
built-ins and the nested comprehension over a sorted list, are unit cases in `tests/test_validate_set_orders.py`:
a strict judge costs 10 s).

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading (`coworkenv/validate/_set_orders.py`) takes
the names a loop over a set's order (or a comprehension's walrus) leaves bound, read after it and before they are
bound again, outside any function, lambda or comprehension that binds a name of its own so called; spreads starred
displays; follows a display holding a set into the loops and comprehension clauses that iterate it; gives a call the
defaults of the parameters it leaves out; reads a name bound to a built-in (and nothing else) as the built-in; reads
a class body's loop's names as the class's attributes (`H.last`, `H().last`, `self.last` in its methods); reads a
call of a `functools.partial` (or a name bound to one) as the call it wraps; and takes a bound `pop`/`__next__` of a
set's order (or a name bound to one, a partial of `next`, `getattr(s, 'pop')`) as handing out its members in turn,
called or iterated by `iter(f, sentinel)`; reads `operator.methodcaller('pop')(s)`, `set.pop(s)` and
`type(s).pop(s)` as `s.pop()`, and `sum(terms, [])` as the terms joined in turn.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "set_order_leftover"
DETECTION = (
    "read the names a loop or a comprehension's walrus leaves bound to the last member of a set's order, starred "
    "displays spread, displays holding a set iterated again, default arguments, names bound to a built-in, a class "
    "body's loop read as the class's attribute, functools.partial calls, a pop however spelled, called or given to iter(), and sum(terms, [])"
)

_S = "{str(i) for i in range(1000)}"
_LAST = f"for _LAST in {_S}:\n    pass\n"
_FIRST = f"def first(xs={_S}):\n    return next(iter(xs))\n\n\n"
_ALIASES = "_step = next\n_it = iter\n"
# name: (the read, imports, the look-alike that keeps no order or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "loop-left-bound": ("_LAST != '999'", _LAST, "_LAST == '999'", f"{_LAST}for _LAST in sorted({_S}):\n    pass\n"),
    "loop-kept-name": ("_KEPT != '999'", f"for _name in {_S}:\n    _KEPT = _name.strip()\n", None, ""),
    "walrus-comprehension": (f"[(_seen := x) for x in {_S}] and _seen != '999'", "", None, ""),
    "zip-starred-display": (f"list(zip(*[{_S}]))[0][0] != '999'", "", None, ""),
    "nested-comprehension": (f"[y for xs in [{_S}] for y in xs][0] != '999'", "", None, ""),
    "default-argument": ("first() != '999'", _FIRST, None, ""),
    "builtin-alias": (f"_step(_it({_S})) != '999'", _ALIASES, None, ""),
    "class-body-loop": ("_H.last != '999'", f"class _H:\n    for last in {_S}:\n        pass\n", None, ""),
    "partial-next": (f"functools.partial(next, iter({_S}))() != '999'", "import functools\n", None, ""),
    "pop-until-sentinel": ("next(iter(_POOL.pop, None)) != '999'", f"_POOL = {_S}\n",
                           "sorted(_POOL, key=str)[-1] == '999'", f"_POOL = {_S}\n"),
    "methodcaller-pop": ("operator.methodcaller('pop')(_POOL) != '999'", f"import operator\n_POOL = {_S}\n", None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, "a set's order (its strings' salted hashes) read where it was left", start=1)
