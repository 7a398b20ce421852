# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 1
# The C `OrderedDict` (`_collections`, CPython 3.11) keeps a table of its nodes indexed like the dict's table of
# entries and brings it to the dict's size before a lookup, not after. `od[k] = v` stores the item, then looks the key
# up again to place its node: a colliding key's `__eq__` run by that second lookup grows the dict behind the
# OrderedDict's back (`dict.__setitem__`, which makes no node) and stores the new key again at the end of the grown
# table, and C indexes its 8-slot node table with that entry's place: it reads a word past the table (the key left out
# of the order where it was not zero) and writes the new node's pointer there (an immutable `bytes` of the code's own,
# made after the table, rewritten; or a crash at exit). Routes: `collections.OrderedDict`, `_collections.OrderedDict`
# and every `OrderedDict` among `dict.__subclasses__()`. Each answers 1 where no OrderedDict of the route can be made
# or the store kept every block and the order; without the hook native code is assumed anyway (a crash, or the error).
import _collections
import collections


def stores_past_the_table(cls, added):
    seen = {"grown": False}

    class Key:
        def __init__(self, name):
            self.name = name

        def __hash__(self):
            return 7  # every key collides

        def __eq__(self, other):
            if self is other:
                return True
            if not seen["grown"] and any(key is late for key in dict.keys(od)):  # the lookup after the store
                seen["grown"] = True
                for n in range(added):
                    dict.__setitem__(od, ("filler", n), n)
                dict.pop(od, late, None)
                dict.__setitem__(od, late, "v")  # the key again, at the end of the grown table
            return False

    pad = [bytes(31) for _ in range(1000)]  # fills the free 64-byte blocks: the next ones follow the table
    od = cls()
    od[Key("first")] = 0  # the node table: 8 slots, one 64-byte block
    blocks = [bytes(31) for _ in range(200)]  # 64-byte blocks after it, zero where the stray slots land
    late = Key("late")
    od[late] = "v"
    changed = sum(block != bytes(31) for block in blocks)
    order = list(od)
    del pad
    if changed or late not in order:
        raise RuntimeError(f"{cls.__module__}.{cls.__name__} wrote past its node table ({added} keys added): "
                           f"{changed} immutable blocks changed, the key {'kept' if late in order else 'lost'}")
    return 1


def route(cls):
    try:
        cls()
    except TypeError:
        return 1  # no OrderedDict of this route is made
    return min(stores_past_the_table(cls, added) for added in (60, 100, 14, 30))


def check(**p):
    found = {id(cls): cls for cls in type.__subclasses__(dict) if cls.__name__ == "OrderedDict"}
    for cls in (collections.OrderedDict, getattr(_collections, "OrderedDict", None)):
        if cls is not None:
            found[id(cls)] = cls
    return min(route(cls) for cls in found.values())
