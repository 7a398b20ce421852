"""Set order deep: a Python check fails one correct agent in a thousand at random, by the order a set of strings
iterates in (their hashes, salted afresh in every `python -I` run of the sandbox), carried where the reading of
set_order_carried did not follow it: through two of the check's own functions (`def first(xs): return
as_list(xs)[0]`), a method, a static method or a property of a class the check defines (`self.names = {...}` read
as `list(self.names)[0]`), a generator (`for x in xs: yield x`, `yield from xs`), an unpacking (`first, *rest = s`),
a loop that fills a list or a text in turn (`out.append(x)`, `text += x + ','`), a deque's index, the n best by a key
(`heapq.nlargest(1, s, key=len)`), a generator seeded by the check choosing among the members (`random.Random(7)
.choice(list(s))`: a fixed position, whichever member stands there), the bytes of `pickle`/`marshal`, the text of
`'%s' %` and `'{}'.format`, `print(*s)` and a CSV row, `statistics.mode` (the first of equally common members),
`operator.itemgetter(0)`, `s.__iter__().__next__()`, and (defects43, which main 0ec3574 accepted) `s.__repr__()`,
`copy.copy(s)` and `operator.getitem(list(s), 0)`. The probes neither pin nor move a string's hash, so every probe
run sees a check that always passes (nearly: one in a thousand per run), and main accepted every defect here.

The sound twins are the same look-alikes given a sorted list, or using the carried order for what it is: the size of
what a loop filled, `heapq.nlargest` without a key (no ties among distinct strings), a seeded choice among the sorted
members, a pickle read back at once, `statistics.mode` of a sorted list.

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading (`coworkenv/validate/_set_orders.py`) reads
the check's own functions, methods and generators with what the others do known, to a fixpoint; follows attributes
bound to a set's order by their holder and name, the lists and texts a loop over one fills, and the names unpacked
from one; and names the calls above as reads (a pickle read back at once, `errors == []` and a sum of whole numbers
are left alone). Floats added in a set's order and compared exactly through a name (`total = sum(...)`, `expected =
0.6`, `total += prices[n]` in a loop over the set) are read too (unit cases in `tests/test_validate_set_orders.py`:
no sound spec fails only one agent in a thousand by them).
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "set_order_deep"
DETECTION = (
    "read the check's own functions, methods, properties and generators to a fixpoint, and follow a set's order "
    "through attributes, unpacking, loops that fill a list or text, deques, heapq by a key, seeded choices, pickle, "
    "marshal, %-formatting, str.format, print, csv rows, statistics.mode and itemgetter to a read of it"
)

_S = "{str(i) for i in range(1000)}"
_TWO = "def as_list(xs):\n    return list(xs)\n\n\ndef first(xs):\n    return as_list(xs)[0]\n\n\n"
_METHOD = "class Names:\n    def first(self, xs):\n        return list(xs)[0]\n\n\n"
_STATIC = "class Pick:\n    @staticmethod\n    def first(xs):\n        return next(iter(xs))\n\n\n"


def _property(read: str) -> str:
    return f"class Digits:\n    def __init__(self):\n        self.names = {_S}\n\n    @property\n" \
           f"    def first(self):\n        return {read}\n\n\n"


_GEN = "def members(xs):\n    for x in xs:\n        yield x\n\n\n"
_GEN_FROM = "def members(xs):\n    yield from xs\n\n\n"
_FILLED = f"ORDER = []\nfor _name in {_S}:\n    ORDER.append(_name)\n"
_TEXT = f"TEXT = ''\nfor _name in {_S}:\n    TEXT += _name + ','\n"
_C, _H, _R, _P, _M = "import collections\n", "import heapq\n", "import random\n", "import pickle\n", "import marshal\n"
_ST, _O = "import statistics\n", "import operator\n"
_PRINTED = f"import io\n_OUT = io.StringIO()\nprint(*{_S}, file=_OUT)\n"
_CSV = f"import csv\nimport io\n_ROW = io.StringIO()\ncsv.writer(_ROW).writerow({_S})\n"
# name: (the read, imports, the look-alike that keeps no order or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "two-own-functions": (f"first({_S}) != '999'", _TWO, f"first(sorted({_S})) == '0'", _TWO),
    "method": (f"Names().first({_S}) != '999'", _METHOD, f"Names().first(sorted({_S})) == '0'", _METHOD),
    "static-method": (f"Pick.first({_S}) != '999'", _STATIC, f"Pick.first(sorted({_S})) == '0'", _STATIC),
    "property": ("Digits().first != '999'", _property("list(self.names)[0]"), "Digits().first == '0'",
                 _property("sorted(self.names)[0]")),
    "generator": (f"next(members({_S})) != '999'", _GEN, f"next(members(sorted({_S}))) == '0'", _GEN),
    "yield-from": (f"list(members({_S}))[0] != '999'", _GEN_FROM, f"len(list(members({_S}))) == 1000", _GEN_FROM),
    "unpacked": ("FIRST != '999'", f"FIRST, *REST = {_S}\n", "FIRST == '0'", f"FIRST, *REST = sorted({_S})\n"),
    "loop-appends": ("ORDER[0] != '999'", _FILLED, "len(ORDER) == 1000", _FILLED),
    "loop-concatenates": ("TEXT[:4] != '999,'", _TEXT, "len(TEXT) == 3890", _TEXT),
    "deque-index": (f"collections.deque({_S})[0] != '999'", _C, f"collections.deque(sorted({_S}))[0] == '0'", _C),
    "nlargest-by-key": (f"heapq.nlargest(1, {_S}, key=len)[0] != '999'", _H, f"heapq.nlargest(1, {_S})[0] == '999'",
                        _H),
    "seeded-choice": (f"random.Random(7).choice(list({_S})) != '999'", _R,
                      f"random.Random(7).choice(sorted({_S})) in {_S}", _R),
    "pickle-bytes": (f"b'\\x8c\\x03999' not in pickle.dumps({_S})[:24]", _P,
                     f"pickle.loads(pickle.dumps({_S})) == {_S}", _P),
    "marshal-bytes": (f"b'999' not in marshal.dumps({_S})[:16]", _M, None, ""),
    "percent-format": (f"('%s' % (list({_S}),))[2:5] != '999'", "", f"('%s' % (sorted({_S}),))[2:3] == '0'", ""),
    "str-format": (f"'{{}}'.format(list({_S}))[2:5] != '999'", "", None, ""),
    "print-starred": ("_OUT.getvalue()[:4] != '999 '", _PRINTED, None, ""),
    "csv-row": ("_ROW.getvalue()[:4] != '999,'", _CSV, None, ""),
    "statistics-mode": (f"statistics.mode(list({_S})) != '999'", _ST, f"statistics.mode(sorted({_S})) == '0'", _ST),
    "itemgetter": (f"operator.itemgetter(0)(list({_S})) != '999'", _O, None, ""),
    "dunder-iter": (f"{_S}.__iter__().__next__() != '999'", "", None, ""),
    # defects43: the set's own text, a copy of it, `operator.getitem`
    "dunder-repr": (f"{_S}.__repr__()[2:5] != '999'", "", None, ""),
    "copy-module": (f"list(copy.copy({_S}))[0] != '999'", "import copy\n", None, ""),
    "operator-getitem": (f"operator.getitem(list({_S}), 0) != '999'", _O, None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, "a set's order (its strings' salted hashes) carried past the set and read",
                        start=2)
