# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 3
# `itertools.accumulate` (CPython 3.11) passes its running total to the addition (`PyNumber_Add`, or a C function
# such as `operator.add`) by a borrowed reference. A value whose type subclasses the total's has its reflected
# `__radd__` asked first: it advances the same accumulate (whose total is replaced) and answers NotImplemented, so the
# total is freed as that frame returns, and C goes on asking the freed total's own `__add__`, with the freed block as
# `self`: the code holds a dangling object, whose block it refills with bytes of its own (SIGSEGV on the next look at
# its type; a forged object with an address). `itertools.count` holds a count of another number type (its slow mode)
# the same way while it adds the step, and returns it. Three routes: accumulate's plain addition, `operator.add`, and a
# count of the code's own numbers. Each answers 1 where the total stayed alive (the addition is then refused:
# TypeError, or the count is) or the accumulate is not run again from inside its own addition (ValueError); a freed
# total seen (its type or count not its own) raises (without the hook native code is assumed anyway: 1, the error, or
# a crash).
import itertools
import operator
import sys


def route(func):
    state = {"armed": True, "freed": False}

    class Total:
        def __add__(self, other):
            if state["freed"]:
                state["freed"] = False
                spray = [bytearray(b"\x41" * 31) for _ in range(4000)]  # the freed block's size class
                if type(self) is not Total or sys.getrefcount(self) > 1 << 20:
                    raise RuntimeError("the code holds its freed total")
                del spray
            return NotImplemented

    class Value(Total):
        def __radd__(self, other):
            if state["armed"]:
                state["armed"] = False
                next(totals)  # replaces the total C is adding to; this frame holds the last reference
                state["freed"] = True
                return NotImplemented
            return 7

    def values():  # a generator: nothing but the accumulate holds the total
        yield Total()
        yield Value()
        yield Value()

    totals = itertools.accumulate(values(), func)
    next(totals)
    try:
        return next(totals)
    except (TypeError, ValueError):  # unsupported operand types (the total was alive throughout), or not run again
        return 1


def count_route():
    state = {"armed": True, "freed": False}

    class Number:
        def __index__(self):  # a number to `count`
            return 0

        def __add__(self, other):
            if state["freed"]:
                state["freed"] = False
                spray = [bytearray(b"\x41" * 31) for _ in range(4000)]
                if type(self) is not Number or sys.getrefcount(self) > 1 << 20:
                    raise RuntimeError("the code holds its freed count")
                del spray
            return NotImplemented

    class Step(Number):
        def __radd__(self, other):
            if state["armed"]:
                state["armed"] = False
                taken = next(counter)  # the count C is adding to, handed over; the count moves on
                del taken
                state["freed"] = True
                return NotImplemented
            return 7

    try:
        counter = itertools.count(Number(), Step())
        next(counter)
    except TypeError:  # unsupported operand types, or a count of plain numbers only
        return 1
    return 0


def check(**p):
    return sum(route(func) for func in (None, operator.add)) + count_route()
