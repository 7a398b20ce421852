# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# cProfile's C profiler (`_lsprof.Profiler(timer)`) calls its timer at every profiled call and return by a borrowed
# reference from its field (CPython 3.11.7's `CallExternalTimer`), and `__init__` run again on the live profiler sets
# the field anew, dropping the old timer. A C timer that alone holds what it works on (`items.__hash__`, a
# method-wrapper holding its tuple) whose own work runs code of the code's own (an item's `__hash__`) that runs
# `__init__` again is freed with its tuple while `tuplehash` walks it: the tuple the code makes next takes the freed
# block, and the hash goes on over that tuple's items (a use after free; a refill of the code's own bytes would forge
# an object). Routes: `__init__` of the profiler's own class, and the C base's found by the class's `__mro__`. Each
# answers 1 where the timer C calls is held while it runs; without the hook native code is assumed anyway.
import _lsprof
import sys

HELD = []
SEEN = []


class Later:
    """An item of a tuple made after the free: the old hash must never reach it."""

    def __hash__(self):
        SEEN.append("a freed profiler timer hashed an item of a tuple made after")
        return 1


class Dropper:
    def __init__(self, drop):
        self.drop = drop

    def __hash__(self):
        drop, self.drop = self.drop, None
        if drop is not None:
            drop()  # runs `__init__` again: the timer running this and its tuple are dropped
            HELD.append((Later(), Later(), Later()))  # takes the freed tuple's block
        return 1


class Plain:
    def __hash__(self):
        return 2


def quiet(*args):
    return 0


def route(how):
    SEEN.clear()
    profiler = None

    def drop():
        if how == "own":
            profiler.__init__(quiet)
        else:
            base = [cls for cls in type(profiler).__mro__ if cls.__module__ == "_lsprof"][-1]
            base.__init__(profiler, timer=quiet)

    items = (Dropper(drop), Plain(), Plain())
    profiler = _lsprof.Profiler(items.__hash__) if how == "own" else _lsprof.Profiler(timer=items.__hash__)
    del items
    profiler.enable()
    len("profiled")  # a profiled call: the timer runs
    profiler.disable()
    if SEEN:
        raise RuntimeError(f"{how}: {SEEN[0]}")
    return 1


def check(**p):
    sys.unraisablehook = lambda *args: None  # the timer's hash is no time: C reports it as unraisable
    return route("own") + route("base")
