# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# C code that calls a callable it holds by a borrowed reference, from a field the callable's own code can set anew
# (CPython 3.11.7), the sixty-eighth round's class in `pyexpat`'s handlers: a parser calls each handler straight from
# its table (`call_with_frame(..., self->handlers[i], ...)`), and setting the handler anew from inside its own call
# drops the table's reference. A Python function survives that (its frame holds it), a C callable does not: a
# handler `d.get` (a bound method, the only holder of its dict), whose key's `__eq__` clears or replaces the handler,
# frees the bound method and the dict while the lookup runs; the dict the code makes next takes the freed dict's
# object (the free list hands out the last freed first), and the lookup goes on over that dict's keys, which it never
# held. Each route answers 1 where the lookup compares only the keys of the dict it was given (its own key, once or
# more: the probes of a text's randomised hash may meet it again); without the hook native code is assumed anyway.
import xml.parsers.expat as expat

SEEN = []
HELD = []


class Marker:
    def __init__(self, key):
        self.key = key

    def __eq__(self, other):
        SEEN.append("an expat handler compared a key of a dict the code made after its own was freed")
        return False

    def __hash__(self):
        return hash(self.key)


def route(name, document, key, how):
    parser = expat.ParserCreate()
    state = {"compared": 0}

    class Key:
        def __eq__(self, other):
            state["compared"] += 1
            if state["compared"] == 1:
                setattr(parser, name, None if how == "cleared" else (lambda *args: None))
                HELD.append({Marker(key): 1})
            return False

        def __hash__(self):
            return hash(key)

    setattr(parser, name, {Key(): 1}.get)
    parser.Parse(document, True)
    return 1 if state["compared"] else 0  # its key compared at least once (its probes may meet it again)


def check(**p):
    answered = route("StartElementHandler", b"<a/>", "a", "cleared")
    answered += route("EndElementHandler", b"<bb></bb>", "bb", "replaced")
    if SEEN:
        raise RuntimeError(SEEN[0])
    return answered
