# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 4
# Two cells (`types.CellType`, or a closure's `__closure__` items) compare by their contents: C (`cell_richcompare`,
# CPython 3.11) takes both contents by borrowed references and hands them to the comparison, whose dispatch asks the
# right operand's reflected method first where its type subclasses the left one's. That method sets the left cell's
# `cell_contents` (its frame then holds the old contents' last reference) and answers NotImplemented: the contents are
# freed as the frame returns, and C goes on asking the freed object's own `__eq__` (or `__ne__`, `__lt__`), with the freed block
# as `self`: the code holds a dangling object, whose block it refills with bytes of its own (SIGSEGV on the next look
# at its type; a forged object with an address). Four routes: `==`, `!=`, `<` of made cells, `==` of a closure's cells (set anew by `nonlocal`).
# Each answers 1 where the contents stayed alive (the comparison then falls back to identity, or raises TypeError for
# an order); a freed object seen (its type or count not its own) raises (without the hook native code is assumed
# anyway: the error, or a crash).
import contextlib
import operator
import sys
import types


def route(compare, closures):
    state = {"armed": True, "freed": False}

    class Left:
        def __eq__(self, other):
            return self.look()

        def __ne__(self, other):
            return self.look()

        def __lt__(self, other):
            return self.look()

        def look(self):
            if state["freed"]:
                state["freed"] = False
                spray = [bytearray(b"\x41" * 31) for _ in range(4000)]  # the freed block's size class
                if type(self) is not Left or sys.getrefcount(self) > 1 << 20:
                    raise RuntimeError("the code holds the freed contents of a cell")
                del spray
            return NotImplemented

    class Right(Left):
        def drop(self):
            if state["armed"]:
                state["armed"] = False
                drop_left()  # this frame holds the old contents' last reference
                state["freed"] = True
            return NotImplemented

        __eq__ = __ne__ = __gt__ = lambda self, other: self.drop()

    if closures:  # a closure's cells, the left one set anew by a `nonlocal` store
        def make(value):
            def drop():
                nonlocal value
                value = None

            return (lambda: value).__closure__[0], drop

        (left, drop_left), (right, _) = make(Left()), make(Right())
    else:
        left, right = types.CellType(Left()), types.CellType(Right())

        def drop_left():
            left.cell_contents = None
    with contextlib.suppress(TypeError):  # an order between the two (the contents stayed alive)
        compare(left, right)
    return 1


def check(**p):
    return (route(operator.eq, False) + route(operator.ne, False) + route(operator.lt, False)
            + route(operator.eq, True))
