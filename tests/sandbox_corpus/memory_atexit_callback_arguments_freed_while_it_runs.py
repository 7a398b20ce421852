# expect: ok
# expect-kernel: exception|ok|crashed|memory_limit
# value: 1
# `atexit._run_exitfuncs()` (CPython 3.11's `atexit_callfuncs`) calls each record's function with the record's own
# argument tuple, `PyObject_Call(cb->func, cb->args, cb->kwargs)`: a C function that takes its arguments as a tuple
# (`functools.reduce`) gets that tuple, which only the record holds, and reads its items by borrowed references. A step
# of `reduce` that clears the registry (`atexit._clear()`) frees the record, its tuple, and so the step function itself
# once it returns (C holds the record's function, `reduce`, but not its arguments); `reduce` then asks its source for
# the next item (a generator of the code's own, which makes 200 functions of the freed one's size) and calls the freed
# step, whose block now holds a function of the code's: C called a function it freed, the code chose which (plain
# 3.11.7: 3 of 3 runs; main: the planted function ran, in the three sets with the hook). A refill of the code's own
# bytes there forges the object C calls (the fifty-fifth round's forged header). With the hook the bootstrap registers
# a callback of its own that holds the function, its arguments and keywords in a Python frame for the call (1);
# without it native code is assumed anyway.
import atexit
import functools

calls = []
made = []


def make_step():
    def step(total, item):
        calls.append("step")
        atexit._clear()  # frees the record: its argument tuple was this function's only other holder
        return total + item
    return step


def source():
    yield 1
    yield 2
    for n in range(200):  # `step` has returned and is freed: functions of the same size take its block
        def planted(total, item, n=n):
            calls.append(f"planted {n}")
            return total
        made.append(planted)
    yield 3


def check(**p):
    atexit.register(functools.reduce, make_step(), source())
    atexit._run_exitfuncs()
    if any(call.startswith("planted") for call in calls):
        raise RuntimeError(f"atexit's callback called a function it freed, refilled by the code: {calls}")
    return 1 if calls == ["step", "step"] else calls
