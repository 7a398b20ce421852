# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 3
# C code that calls a callable it holds by a borrowed reference, from a field the callable's own code can set anew
# (CPython 3.11.7), the sixty-eighth round's class in `property`: its `__get__`, `__set__` and `__delete__` call the
# getter, setter and deleter straight from the property's fields, and `property.__init__` run again on a live
# property sets all three anew. A Python function survives that (its frame holds it), a C callable does not: a
# getter `lst.count` (a bound method, the only holder of its list), whose first item's `__eq__` re-initialises the
# property, frees the bound method and the list while `list.count` walks it; the list the code makes next takes the
# freed list's object (the free list hands out the last freed first), and the count goes on comparing that list's
# items, which it never held. Routes: the getter (`lst.count`), the setter (`lst.index` with the value as its start),
# the deleter (`lst.count`). Each answers 1 where the accessor walks only the list it was given; without the hook
# native code is assumed anyway.
class Marker:
    def __eq__(self, other):
        raise RuntimeError("the accessor compared an item of a list the code made after its own list was freed")

    __hash__ = object.__hash__


def route(how):
    state = {"first": True}

    class Item:
        def __eq__(self, other):
            if state["first"]:
                state["first"] = False
                Owner.__dict__["x"].__init__(len)  # getter, setter and deleter anew: the bound method's last reference
                HELD.append([Marker(), Marker(), Marker(), Marker()])  # takes the freed list's object
            return False

        __hash__ = object.__hash__

    items = [Item(), Item(), Item(), Item()]
    method = items.index if how == "set" else items.count
    del items

    class Owner:
        x = property(method, method, method)

    del method
    owner = Owner()
    if how == "get":
        answer = owner.x
    elif how == "set":
        try:
            owner.x = 0
        except ValueError:
            answer = 0
    else:
        del owner.x
        answer = 0
    return 1 if answer == 0 else 0


HELD = []


def check(**p):
    return route("get") + route("set") + route("delete")
