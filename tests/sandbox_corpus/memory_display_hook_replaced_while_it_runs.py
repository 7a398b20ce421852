# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# C code that calls a callable it holds by a borrowed reference, from a field the callable's own code can set anew
# (CPython 3.11.7), the seventieth round's class in the one interpreter hook it left open: `sys.displayhook`, which
# `PRINT_EXPR` (code compiled in "single" mode, as `code.interact` and `doctest` run it) reads from the `sys` module's
# dict without holding it and calls, with no audit event between. A hook `lst.count` (a bound method, the only holder
# of its list) whose first item's `__eq__` sets the hook back to the interpreter's own frees the bound method and the
# list while `list.count` walks it; the list the code makes next takes the freed list's object, and the count goes on
# comparing that list's items, which it never held. A `dict.get` whose key's `__eq__` does the same is the second
# route. Each route answers 1 where the hook walks only what it was given; without the hook native code is assumed.
import sys

SEEN = []
HELD = []


class Marker:
    def __eq__(self, other):
        SEEN.append("the display hook compared an item of a container the code made after its own was freed")
        return False

    def __hash__(self):
        return 7


def route(how):
    state = {"first": True, "compared": 0}

    class Item:
        def __eq__(self, other):
            state["compared"] += 1
            if state["first"]:
                state["first"] = False
                sys.displayhook = sys.__displayhook__  # the bound method's last reference
                if how == "count":
                    HELD.append([Marker(), Marker(), Marker(), Marker()])  # takes the freed list's object
                else:
                    HELD.append({Marker(): 1})  # takes the freed dict's object
            return False

        def __hash__(self):
            return 7

    if how == "count":
        sys.displayhook = [Item(), Item(), Item(), Item()].count
        expected = 4
    else:
        sys.displayhook = {Item(): 1}.get
        expected = 1
    try:  # the expression's value is a fresh Item, equal to none of the hook's
        exec(compile("Item()", "<single>", "single"), {"Item": Item})  # PRINT_EXPR hands the value to the hook
    finally:
        sys.displayhook = sys.__displayhook__
    return 1 if state["compared"] == expected else 0


def check(**p):
    answered = route("count") + route("get")
    if SEEN:
        raise RuntimeError(SEEN[0])
    return answered
