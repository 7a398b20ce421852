"""Address read: a Python check fails a correct agent at random, by an object's address or a string's hash (both
drawn afresh for every run: the allocator's addresses move with the address-space layout, and the hash of a string is
salted per process) read by a route other than arithmetic on `id()` or `hash()`: the default text of an object, which
shows its address (`repr(object())`, `str(...)`, an f-string, `'{}'.format(...)`, a lambda's or the check's own
function's `repr`, `object.__repr__(rows)`), the address's digits or bits (`hex(id(rows))`, `format(id(rows), 'x')`,
`id(rows).to_bytes(...)`, `id(...).bit_count()`, a string's `hash(...).to_bytes(...)`), a thread's id, which is its
address (`threading.current_thread().ident`), and the order a set of strings iterates in, which their hashes decide
(`list({...})[:3]`, `next(iter({...}))`, `{...}.pop()`, `','.join(set(...))`). The static reading of entropy_unpinned
flagged `id`/`hash` only as an operand of arithmetic or an ordering; main accepted every defect here.

The sound twins are the same Python check without the draw, and look-alikes that use an address or a set for what
they are: identity (`id(rows) == id(rows)`), membership (`'999' in {...}`), a sorted set, its size, the text of a
built-in (`repr(len)`), a thread's name.

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading (`coworkenv/validate/_entropy_tells.py`)
counts an address or a string's hash used for anything but identity (`==`, `!=`, `is`, `in`, a key, a set member) as
a draw, the default text of an object whose text shows its address (an `object()`, a lambda, a generator, an
iterator, a function or class the check defines) as an address, and a positional read of a set (an index or cut of
its list or tuple, `next(iter(...))`, `pop()`, `join`, its text, a comparison with a list) as its hashes' order.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "address_read"
DETECTION = (
    "read the check unrun and reject an address or a string's hash used for anything but identity (its hex digits, "
    "bytes, bits, the default text of an object, a thread's ident) and a positional read of a set (the order its "
    "strings' salted hashes decide); the probes neither pin nor move these"
)

_SET = "{str(i) for i in range(1000)}"
# name: (the read, imports, the look-alike that uses the address or the set for what it is or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "repr-object": ("repr(object())[-5:-2] != 'fff'", "", "repr(len) == '<built-in function len>'", ""),
    "str-object": ("not str(object()).endswith('ff0>')", "", "id(rows) == id(rows)", ""),
    "fstring-object": ("f'{object()}'[-5:-2] != 'abc'", "", None, ""),
    "format-method": ("'{}'.format(object())[-5:-2] != 'c0d'", "", "'{}'.format(len(rows)).isdigit()", ""),
    "lambda-repr": ("repr(lambda: 0)[-5:-2] != 'fff'", "", None, ""),
    "own-function-repr": ("repr(check)[-5:-2] != 'ace'", "", None, ""),
    "object-repr-of": ("object.__repr__(rows)[-5:-2] != 'bad'", "", None, ""),
    "hex-id": ("hex(id(rows))[-4:-1] != 'fff'", "", None, ""),
    "format-id": ("format(id(rows), 'x')[-4:-1] != 'abc'", "", None, ""),
    "id-bytes": ("id(rows).to_bytes(8, 'little')[1] != 255", "", None, ""),
    "id-bits": ("id(object()).bit_count() != 3", "", None, ""),
    "hash-bytes": ("hash('paused').to_bytes(8, 'little', signed=True)[0] != 255", "", None, ""),
    "thread-ident": ("threading.current_thread().ident % 1000 < 999", "import threading\n",
                     "threading.current_thread().name == 'MainThread'", "import threading\n"),
    "set-first": (f"next(iter({_SET})) != '999'", "", f"sorted({_SET})[0] == '0'", ""),
    "set-pop": (f"{_SET}.pop() != '999'", "", f"'999' in {_SET}", ""),
    "set-join": ("not ','.join(set(map(str, range(1000)))).startswith('999,')", "",
                 "len(set(map(str, range(1000)))) == 1000", ""),
    "set-list-cut": ("list(frozenset(('alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta')))[:3] != "
                     "['eta', 'zeta', 'beta']", "", None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, ("an address or a string's salted hash read past identity (its text, digits "
                                             "or bits, a set's order)"), start=0)
