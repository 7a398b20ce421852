# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# C code that calls a callable it holds by a borrowed reference, from a registry the callable's own code can change
# (CPython 3.11.7), the sixty-eighth round's class in the codec registry: `codecs.lookup` (and every `encode`,
# `decode` and `open` of an encoding it has not cached) calls each registered search function straight from the
# interpreter's list of them, and `codecs.unregister` drops the list's reference. A Python function survives that
# (its frame holds it), a C callable does not: a search function `lst.count` (a bound method, the only holder of its
# list), whose first item's `__eq__` unregisters it, frees the bound method and the list while `list.count` walks it;
# the list the code makes next takes the freed list's object (the free list hands out the last freed first), and the
# count goes on comparing that list's items, which it never held. Routes: `codecs.lookup` and `str.encode` of a name
# nothing found before. Each answers 1 where the lookup walks only the list it was given (LookupError, or TypeError for
# the count it answers: no codec); without the hook native code is assumed anyway.
import codecs


class Marker:
    def __eq__(self, other):
        raise RuntimeError("the search function compared an item of a list the code made after its own was freed")

    __hash__ = object.__hash__


def route(how):
    state = {"first": True}
    box = []

    class Item:
        def __eq__(self, other):
            if state["first"]:
                state["first"] = False
                codecs.unregister(box.pop())  # the registry's reference and this one: the bound method's last
                HELD.append([Marker(), Marker(), Marker(), Marker()])  # takes the freed list's object
            return False

        __hash__ = object.__hash__

    items = [Item(), Item(), Item(), Item()]
    box.append(items.count)
    codecs.register(box[0])
    del items
    name = f"sandbox_round_69_{how}"
    try:
        codecs.lookup(name) if how == "lookup" else "text".encode(name)
    except (LookupError, TypeError):  # no codec found, or a count (no codec) of the list it was given
        return 1
    return 0


HELD = []


def check(**p):
    return route("lookup") + route("encode")
