# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 3
# `iter(callable, sentinel)` (CPython 3.11's callable iterator, `calliter_iternext`) compares each value the callable
# returns with its sentinel (`PyObject_RichCompareBool(it_sentinel, result, Py_EQ)`) without a reference of its own
# to the sentinel. A value whose type subclasses the sentinel's has its reflected `__eq__` asked first: it advances the
# same iterator, whose callable now returns the sentinel itself (taken from the iterator's `__reduce__`, so that the
# iterator holds its last reference); that inner step finds the sentinel, exhausts the iterator, which drops the
# sentinel, and the `__eq__` answers NotImplemented. C then asks the freed sentinel's own `__eq__` with the freed block
# as `self`: the code holds a dangling object, whose block it refills with bytes of its own (SIGSEGV on the next look
# at its type; a forged object with an address). Three routes: `next(it)`, a `for` loop, `list(it)`. Each answers 1
# where the sentinel stayed alive; a freed object seen (its type or count not its own) raises (without the hook native
# code is assumed anyway: the error, or a crash).
import contextlib
import sys


def route(consume):
    state = {"armed": True, "freed": False, "calls": 0}

    class Sentinel:
        def __eq__(self, other):
            if state["freed"]:
                state["freed"] = False
                spray = [bytearray(b"\x41" * 31) for _ in range(4000)]  # the freed block's size class
                if type(self) is not Sentinel or sys.getrefcount(self) > 1 << 20:
                    raise RuntimeError("the code holds the freed sentinel of a callable iterator")
                del spray
            return NotImplemented

        __hash__ = object.__hash__

    class Value(Sentinel):
        def __eq__(self, other):  # asked first: Value subclasses the sentinel's type
            if state["armed"]:
                state["armed"] = False
                with contextlib.suppress(StopIteration):
                    next(it)  # the callable hands back the sentinel: the iterator ends and drops it
                state["freed"] = True
            return NotImplemented

        __hash__ = object.__hash__

    def produce():
        state["calls"] += 1
        if state["calls"] == 1:
            return Value()
        return it.__reduce__()[1][1]  # the sentinel, whose other reference is the iterator's own

    it = iter(produce, Sentinel())
    try:
        consume(it)
    except (ValueError, RuntimeError) as error:  # an iterator that refuses to run inside its own comparison
        if "freed" in str(error):
            raise
    return 1


def check(**p):
    return route(next) + route(lambda it: [None for _ in it]) + route(list)
