# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 3
# C code that calls a callable it holds by a borrowed reference, from a field the callable's own code can set anew
# (CPython 3.11.7): a `defaultdict`'s `__missing__` calls its `default_factory` (a writable attribute), and a
# `staticmethod` object's call its function (`staticmethod.__init__` runs again on it). A Python function survives
# that (its frame holds it), a C callable does not: the bound `__next__` of a `filter` whose predicate sets the
# factory anew frees the bound method, the filter and its source while the filter's C step runs, which then steps the
# freed source with the freed filter's predicate. Three objects of the code's own of the same size took the three
# freed blocks, and the step answered an item of the list iterator that took the source's block (with a reference it
# never took; a refill of bytes of the code's own: a forged object). Routes: `dd[key]`, `dd.__missing__(key)`, a
# staticmethod called. Each answers 1 where the call answers what the filter gives (2, its source's next item); without
# the hook native code is assumed anyway.
import collections


class Marker:
    pass


MARKERS = [Marker() for _ in range(3)]
SOURCE = iter(range(10))
HELD = []


def yes(item):
    return True


def route(how):
    state = {"first": True}
    holder = {}

    def pred(item):
        if state["first"]:
            state["first"] = False
            if how == "staticmethod":
                holder["callable"].__init__(yes)  # its function anew: the bound __next__'s last reference dropped
            else:
                holder["callable"].default_factory = None
            HELD.append((iter(MARKERS), filter(yes, SOURCE), iter(MARKERS)))  # the three freed blocks, last first
            return False
        return True

    source = iter([1, 2, 3])
    kept = filter(pred, source)
    step = kept.__next__
    holder["callable"] = staticmethod(step) if how == "staticmethod" else collections.defaultdict(step)
    del source, kept, step
    called = holder["callable"]
    answer = called() if how == "staticmethod" else called.__missing__("k") if how == "missing" else called["k"]
    if any(answer is marker for marker in MARKERS):
        raise RuntimeError(f"{how}: the call stepped a source it freed: it answered an item of a list iterator the "
                           f"code made after")
    return 1 if answer == 2 else 0


def check(**p):
    return route("subscript") + route("missing") + route("staticmethod")
