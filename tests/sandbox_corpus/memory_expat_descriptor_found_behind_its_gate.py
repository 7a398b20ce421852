# expect: forbidden
# expect-kernel: ok|crashed|memory_limit|exception
# `pyexpat`'s own C descriptor of a handler, wherever a gate in front of it keeps it, used to install a C callable
# handler that replaces itself from inside its own call (CPython 3.11.7: a parser calls a handler by a borrowed
# reference from its table, so a handler `d.get` that alone held its dict, whose key's `__eq__` clears the handler, is
# freed with the dict while the lookup runs, and the lookup goes on over the keys of the dict the code makes next).
# The search walks whatever the parser's type shows the code: its attributes, the methods of a descriptor there, their
# defaults and keyword defaults, closure cells, `__wrapped__`, and the tuples, lists and dicts in them. Reading where
# the bootstrap keeps C's descriptors is refused; without the hook native code is assumed anyway.
import xml.parsers.expat as expat

SEEN = []
HELD = []
FOUND = []
REFUSED = []


def is_descriptor(obj):
    return type(obj).__name__ == "getset_descriptor" and getattr(obj, "__name__", None) == "StartElementHandler"


def walk(start, depth=8):
    todo, seen = [(start, 0)], set()
    while todo and not REFUSED and not FOUND:
        obj, level = todo.pop()
        if id(obj) in seen or level > depth:
            continue
        seen.add(id(obj))
        if is_descriptor(obj):
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


class Marker:
    def __eq__(self, other):
        SEEN.append("an expat handler compared a key of a dict the code made after its own was freed")
        return False

    def __hash__(self):
        return hash("a")


def cleared_inside(descriptor):
    parser = expat.ParserCreate()
    state = {"compared": 0}

    class Key:
        def __eq__(self, other):
            state["compared"] += 1
            if state["compared"] == 1:
                descriptor.__set__(parser, None)  # the bound method's last reference
                HELD.append({Marker(): 1})  # takes the freed dict's object
            return False

        def __hash__(self):
            return hash("a")

    descriptor.__set__(parser, {Key(): 1}.get)
    parser.Parse(b"<a/>", True)


def check(**p):
    walk(expat.XMLParserType)
    if FOUND:
        cleared_inside(FOUND[0])
    if SEEN:
        raise RuntimeError(SEEN[0])
    return len(FOUND)
