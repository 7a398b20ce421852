# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `contextvars.Context.__eq__` (CPython 3.11; gh-142829, fixed in later releases only) walks both contexts' mappings
# (immutable trees of nodes holding key and value pointers) by borrowed references and compares each pair of values
# with the values' own `__eq__`. Compared from inside `Context.run`, the left context is the current one: a value's
# `__eq__` that sets its variables replaces that context's mapping, which only it held, so the tree's nodes (and the
# values in them) are freed while C walks them; bytearray buffers of the code's own take the freed blocks, and C reads
# the next key and value pointers from bytes the code wrote (0xff here: SIGSEGV; a pointer to a header of the code's
# own makes a forged object). With the hook the comparison walks copies of both mappings (1); without it native code
# is assumed anyway.
import contextvars
import operator
import os

VARS = [contextvars.ContextVar(f"v{i}") for i in range(8)]
SEEN, HOLDERS = [], []


def hooked():
    """Whether the audit hook runs (it refuses a hard link in the scratch)."""
    with open("a", "w"):
        pass
    try:
        os.link("a", "b")
    except OSError as exc:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_name == "hook":
                return True
            tb = tb.tb_next
    return False


class Value:
    def __eq__(self, other):
        if not SEEN:
            for var in VARS:
                var.set(None)  # the current context's mapping replaced: the one C walks is freed
            HOLDERS.extend(bytearray(b"\xff" * 63) for _ in range(256))
        SEEN.append(1)
        return True

    __hash__ = object.__hash__


def compare(current):
    for var in VARS:
        var.set(Value())
    snapshot = contextvars.copy_context()
    for var in VARS:
        var.set(Value())  # a mapping the current context alone holds
    return operator.eq(current, snapshot)  # the current context on the left


def check(**p):
    if not hooked():  # native code is assumed anyway
        return 1
    for _ in range(16):
        SEEN.clear()
        current = contextvars.Context()
        current.run(compare, current)
    return 1
