# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 4
# A weak proxy (`weakref.proxy`) compares by its referent: C (`proxy_richcompare`, CPython 3.11.7; the proxy's
# arithmetic holds its referents, its comparisons do not) takes the referent by a borrowed reference and hands it to the
# comparison, whose dispatch asks the other operand's reflected method first where its type subclasses the
# referent's. That method drops the referent's last strong reference (its frame then holds the last one) and answers
# NotImplemented: the referent is freed as the frame returns, and C goes on asking the freed object's own `__eq__` (or
# `__ne__`, `__lt__`), with the freed block as `self`: the code holds a dangling object, whose block it refills with
# bytes of its own (SIGSEGV on the next look at its type; a forged object with an address). Four routes: `==`, `!=`,
# `<` of a proxy and an object, `==` of two proxies. Each answers 1 where the referent stayed alive (the comparison then
# falls back to identity, or raises TypeError for an order); a freed object seen (its type or count not its own) raises
# (without the hook native code is assumed anyway: the error, or a crash).
import contextlib
import operator
import sys
import weakref


def route(compare, both_proxies):
    state = {"armed": True, "freed": False}
    strong = {}

    class Left:
        def look(self, other):
            if state["freed"]:
                state["freed"] = False
                spray = [bytearray(b"\x41" * 31) for _ in range(4000)]  # the freed block's size class
                if type(self) is not Left or sys.getrefcount(self) > 1 << 20:
                    raise RuntimeError("the code holds the freed referent of a weak proxy")
                del spray
            return NotImplemented

        __eq__ = __ne__ = __lt__ = look
        __hash__ = object.__hash__

    class Right(Left):
        def drop(self, other):
            if state["armed"]:
                state["armed"] = False
                strong.clear()  # the referent's last strong reference: this frame holds its last one
                state["freed"] = True
            return NotImplemented

        __eq__ = __ne__ = __gt__ = drop
        __hash__ = object.__hash__

    strong["left"], right = Left(), Right()
    left = weakref.proxy(strong["left"])
    with contextlib.suppress(TypeError):  # an order between the two (the referent stayed alive)
        compare(left, weakref.proxy(right) if both_proxies else right)
    return 1


def check(**p):
    return (route(operator.eq, False) + route(operator.ne, False) + route(operator.lt, False)
            + route(operator.eq, True))
