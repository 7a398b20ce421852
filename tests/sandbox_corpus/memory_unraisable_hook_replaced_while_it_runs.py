# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# C code that calls a callable it holds by a borrowed reference, from a field the callable's own code can set anew
# (CPython 3.11.7), the sixty-eighth round's class in the interpreter's hooks: an exception nothing can raise (a
# `__del__`'s, a weak reference callback's) goes to `sys.unraisablehook`, which C reads from the `sys` module's dict
# without holding it and calls. A Python function survives being replaced from inside its own call (its frame holds
# it), a C callable does not: a hook `lst.count` (a bound method, the only holder of its list), whose first item's
# `__eq__` sets the hook back to the interpreter's own, frees the bound method and the list while `list.count` walks
# it; the list the code makes next takes the freed list's object (the free list hands out the last freed first), and
# the count goes on comparing that list's items, which it never held. Each route answers 1 where the count walks only
# the list it was given; without the hook native code is assumed anyway.
import sys
import weakref

SEEN = []
HELD = []


class Marker:
    def __eq__(self, other):
        SEEN.append("the unraisable hook compared an item of a list the code made after its own was freed")
        return False

    __hash__ = object.__hash__


class Dies:
    def __del__(self):
        raise ValueError("raised where nothing can catch it")


def route(how):
    state = {"first": True, "compared": 0}

    class Item:
        def __eq__(self, other):
            state["compared"] += 1
            if state["first"]:
                state["first"] = False
                sys.unraisablehook = sys.__unraisablehook__  # the bound method's last reference
                HELD.append([Marker(), Marker(), Marker(), Marker()])  # takes the freed list's object
            return False

        __hash__ = object.__hash__

    sys.unraisablehook = [Item(), Item(), Item(), Item()].count
    if how == "del":
        Dies()
    else:
        target = Marker()
        keep = weakref.ref(target, lambda ref: 1 / 0)  # noqa: F841 -- the callback raises where nothing catches it
        del target
    sys.unraisablehook = sys.__unraisablehook__
    return 1 if state["compared"] == 4 else 0


def check(**p):
    answered = route("del") + route("weakref")
    if SEEN:
        raise RuntimeError(SEEN[0])
    return answered
