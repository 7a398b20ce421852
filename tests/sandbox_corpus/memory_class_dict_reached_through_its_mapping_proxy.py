# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 6
# A class's `__dict__` is a read-only `mappingproxy` over the type's own dict, which the interpreter changes only
# through `type.__setattr__` (which bumps the type's version, the key of its attribute lookup cache and of every call
# site specialised on it). But a proxy's comparisons and `|` (CPython 3.11.7: `mappingproxy_richcompare`,
# `mappingproxy_or`) hand the real dict to the other operand: the dispatch asks its reflected method (`__eq__`, `__ne__`,
# `__gt__`, `__ror__`) with the dict, first where it subclasses dict, after the dict's own answered NotImplemented
# otherwise, and `x | proxy` hands it to `x.__or__` again. Holding the dict, the code deletes a method from it: the
# function is freed (its last reference) while the lookup cache still names it, and the next call of the method calls
# whatever took its block: a function the code made after it (a forged object, as the earlier rounds' headers; or a
# crash). Routes: `==` with a dict subclass and with a plain object, `!=`, `<`, `proxy | x`, `x | proxy`. Each answers
# 1 where the other operand never held the class's own dict; without the hook native code is assumed anyway.
import contextlib
import operator

HELD = []


class Grab(dict):
    """Takes whatever the comparison or `|` hands it."""

    got = None

    def take(self, other):
        Grab.got = other
        return NotImplemented

    __eq__ = __ne__ = __gt__ = __ror__ = take
    __hash__ = None


class Plain:
    got = None

    def take(self, other):
        if not isinstance(other, type(type.__dict__)):  # the proxy first; what it hands on then
            Plain.got = other
        return NotImplemented

    __eq__ = __or__ = take
    __hash__ = None


def route(name, compare, holder):
    class Target:
        pass

    def method(self):
        return 1

    Target.method = method
    del method
    holder.got = None
    with contextlib.suppress(TypeError):  # an order or `|` that no side answers
        compare(Target.__dict__)
    got, holder.got = holder.got, None
    if type(got) is not dict or got.get("method") is not Target.__dict__["method"]:
        return 1  # a copy, or nothing: the class's own dict never left the proxy
    got["probe"] = 2
    own = "probe" in Target.__dict__
    del got["probe"]
    if not own:
        return 1
    target = Target()
    for _ in range(100):
        target.method()  # the lookup cache and this call site name the function
    del got["method"]  # its last reference: freed, the type's version unchanged
    made = []
    for n in range(300):  # functions of the code's own: one takes the freed block
        def later(self, n=n):
            return n + 100
        made.append(later)
    HELD.append(made)
    answer = target.method()
    raise RuntimeError(f"{name}: the code holds the class's own dict through its mapping proxy; a method deleted "
                       f"there then answered {answer}" + (f" (the function it made {answer - 100}th)"
                                                          if answer != 1 else ""))


def check(**p):
    return (route("==, a dict subclass", lambda proxy: proxy == Grab(), Grab)
            + route("==, a plain object", lambda proxy: proxy == Plain(), Plain)
            + route("!=", lambda proxy: proxy != Grab(), Grab)
            + route("<", lambda proxy: proxy < Grab(), Grab)
            + route("proxy | x", lambda proxy: operator.or_(proxy, Grab()), Grab)
            + route("x | proxy", lambda proxy: operator.or_(Plain(), proxy), Plain))
