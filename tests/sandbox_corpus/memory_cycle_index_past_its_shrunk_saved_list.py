# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# `itertools.cycle` keeps the items of its first pass in a list and an index into it; once its source is done, each
# step reads the list's item at that index (`PyList_GET_ITEM`, CPython 3.11.7) and checks the index against the list's
# size only after it moved it on. The list is the code's to change: `__reduce__` hands out the very list (its state,
# for pickle and copy), and `__setstate__` takes a list of the code's own as the saved one. A list cut to 20 items
# under an index of 30 (its table kept: no shrink below half) had the next step read slot 30 of the table, an item
# freed by the cut whose block an object the code made next had taken, and hand it out (with a reference it never
# took: a forged object, as the earlier rounds' headers; a table cut further reads past its block, SIGSEGV). Routes:
# the list `__reduce__` hands out, and one given to `__setstate__`. Each answers 1 where the cycle keeps its list to
# itself (no state given or taken); without the hook native code is assumed anyway.
import itertools

HELD = []


class Item:
    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n


class Marker:
    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n


def route(how):
    items = [Item(n) for n in range(40)]
    cycle = itertools.cycle(items if how == "reduce" else ())
    try:
        if how == "reduce":
            for _ in range(40):
                next(cycle)  # the first pass: every item saved
            saved = cycle.__reduce__()[2][0]  # the list the cycle holds
        else:
            next(cycle, None)  # its source done: it reads its saved list only
            saved = list(items)
            cycle.__setstate__((saved, False))  # a list of the code's own, held as the cycle's
    except (AttributeError, TypeError, IndexError):
        return 1  # no state is given or taken
    if type(saved) is not list or len(saved) != 40:
        return 1
    del items
    for _ in range(30):
        next(cycle)  # its index: 30
    del saved[20:]  # items 20 to 39 freed, the table kept
    markers = [Marker(n) for n in range(40)]  # objects of the code's own take the freed blocks
    HELD.append(markers)
    step = next(cycle)  # C reads the table's slot 30, past the list's 20 items
    if type(step) is not Item:
        raise RuntimeError(f"{how}: the cycle handed out slot 30 of a 20-item list: {type(step).__name__} "
                           f"{getattr(step, 'n', '?')}, made after")
    return 1


def check(**p):
    return route("reduce") + route("setstate")
