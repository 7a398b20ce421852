# expect: forbidden
# sqlite's own C member of a connection's `text_factory`, wherever a gate in front of it keeps it, used to install a
# C factory that sets itself anew from inside its own call (CPython 3.11.7: a fetch calls the factory by a borrowed
# reference from the connection's field, so a factory `items.count` that alone held its list, whose item's `__eq__`
# sets the factory anew, is freed with the list while the count runs, and the count goes on over the items of the
# list the code makes next). The search walks whatever the connection's type shows the code: its attributes, the
# methods of a descriptor there, their defaults and keyword defaults, closure cells, `__wrapped__`, and the tuples,
# lists and dicts in them. Reading where the bootstrap keeps C's members is refused.
import sqlite3

SEEN = []
HELD = []
FOUND = []
REFUSED = []


def is_member(obj):
    return type(obj).__name__ == "member_descriptor" and getattr(obj, "__name__", None) == "text_factory"


def walk(start, depth=8):
    todo, seen = [(start, 0)], set()
    while todo and not REFUSED and not FOUND:
        obj, level = todo.pop()
        if id(obj) in seen or level > depth:
            continue
        seen.add(id(obj))
        if is_member(obj):
            FOUND.append(obj)
            return
        parts = []
        if type(obj).__name__ == "function":
            for name in ("__kwdefaults__", "__defaults__", "__closure__", "__wrapped__"):
                try:
                    parts.append(getattr(obj, name, None))
                except PermissionError:  # refused where the bootstrap keeps it
                    REFUSED.append(name)
        elif type(obj).__name__ == "cell":
            parts.append(obj.cell_contents)
        elif isinstance(obj, type):
            parts.extend(vars(obj).values())
        elif isinstance(obj, dict):
            parts.extend(obj.values())
        elif isinstance(obj, (tuple, list)):
            parts.extend(obj)
        elif level and not isinstance(obj, (str, int)):  # a descriptor of the bootstrap's: its type's methods
            parts.append(type(obj))
        todo.extend((part, level + 1) for part in parts if part is not None)


class Later:
    def __eq__(self, other):
        SEEN.append("a sqlite factory compared an item of a list the code made after its own was freed")
        return False


def cleared_inside(member):
    con = sqlite3.connect(":memory:")

    class Dropper:
        def __init__(self, first):
            self.first = first

        def __eq__(self, other):
            if self.first:
                self.first = False
                member.__set__(con, str)  # the bound method's last reference
                HELD.append([Later() for _ in range(3)])  # takes the freed list's object
            return False

    items = [Dropper(True), Dropper(False), Dropper(False)]
    member.__set__(con, items.count)
    del items
    con.execute("select 'abc'").fetchone()
    con.close()


def check(**p):
    walk(sqlite3.Connection)
    if FOUND:
        cleared_inside(FOUND[0])
    if SEEN:
        raise RuntimeError(SEEN[0])
    return len(FOUND)
