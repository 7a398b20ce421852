# expect: ok
# expect-kernel: ok
# value: 0
# The bootstrap's gates stand where C functions stood (`builtins.__import__`, `print`, `input`, `compile`, `iter`,
# `signal.signal`, `sys.displayhook`, `faulthandler`'s, `csv.reader`, cProfile's `__init__`), and C's function must be
# held by no Python object the code can reach: the eighty-third round found C's `__import__` in the locals of its gate's
# frame (its tools), which a traceback through the gate hands over. This walks the frames of a traceback out of each
# gate, and what their locals hold (tuples, lists and dicts one level down), for a C function of a module whose
# attribute of that name is no longer that function: a replaced C function. Answers how many it found (0).
import cProfile
import csv
import faulthandler
import signal
import sys

BUILTIN = type(len)
MODULE = type(sys)


class Raises:
    def __str__(self):
        raise LookupError("from the code's own __str__")

    __repr__ = __str__

    def __index__(self):
        raise LookupError("from the code's own __index__")

    def __iter__(self):
        raise LookupError("from the code's own __iter__")


def replaced(value):
    found = []
    items = [value]
    if type(value) in (tuple, list):
        items.extend(value)
    elif type(value) is dict:
        items.extend(value.values())
    for item in items:
        if type(item) is BUILTIN and type(getattr(item, "__self__", None)) is MODULE:
            module = item.__self__
            if getattr(module, item.__name__, None) is not item:
                found.append(f"{module.__name__}.{item.__name__}")
    return found


def attempts():
    yield lambda: __import__("zz_no_such_module_83")
    yield lambda: __import__("json", None, None, None, Raises())
    yield lambda: print(Raises())
    yield lambda: print(1, sep=5)
    yield lambda: input(Raises())
    yield lambda: compile(5, "f", "exec")
    yield lambda: compile("x", "f", "exec", Raises())
    yield lambda: iter(5, 1)
    yield lambda: iter(Raises())
    yield lambda: signal.signal(Raises(), signal.SIG_DFL)
    yield lambda: signal.signal(signal.SIGUSR1, 5)
    yield lambda: sys.displayhook(Raises())
    yield lambda: faulthandler.enable(Raises())
    yield lambda: csv.reader(Raises())
    yield lambda: cProfile.Profile(Raises())


def check(**p):
    found = set()
    for attempt in attempts():
        try:
            attempt()
        except BaseException as error:  # every failure's traceback is walked
            tb = error.__traceback__
            while tb is not None:
                for value in tb.tb_frame.f_locals.values():
                    found.update(replaced(value))
                tb = tb.tb_next
    if found:
        raise RuntimeError(f"replaced C functions held in the frames of their gates: {sorted(found)}")
    return 0
