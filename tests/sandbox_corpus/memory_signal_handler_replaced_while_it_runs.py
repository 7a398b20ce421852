# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# C code that calls a callable it holds by a borrowed reference, from a field the callable's own code can set anew
# (CPython 3.11.7), the sixty-eighth round's class in the interpreter's signal handlers: C reads a handler from its
# table without holding it and calls it (`_PyErr_CheckSignalsTstate`), and `signal.signal` replaces the table's entry,
# dropping its reference. A Python function survives being replaced from inside its own call (its frame holds it), a
# C callable does not: a handler `d.get` (a bound method, the only holder of its dict), whose key's `__eq__` sets the
# signal's handler anew, frees the bound method and the dict while the lookup runs; the dict the code makes next takes
# the freed dict's object (the free list hands out the last freed first), and the lookup goes on over that dict's
# keys, which it never held. Each route answers 1 where the lookup compares only the keys of the dict it was given;
# without the hook native code is assumed anyway.
import signal

SEEN = []
HELD = []


class Marker:
    def __init__(self, number):
        self.number = number

    def __eq__(self, other):
        SEEN.append("a signal handler compared a key of a dict the code made after its own was freed")
        return False

    def __hash__(self):
        return self.number


def route(how):
    number = signal.SIGUSR1 if how == "ignored" else signal.SIGUSR2
    state = {"compared": 0}

    class Key:
        def __eq__(self, other):
            state["compared"] += 1
            if state["compared"] == 1:
                if how == "ignored":
                    signal.signal(number, signal.SIG_IGN)  # the bound method's last reference
                else:
                    signal.signal(number, lambda signum, frame: None)
                HELD.append({Marker(int(number)): 1})  # takes the freed dict's object
            return False

        def __hash__(self):
            return int(number)

    handler = {Key(): 1}.get if how == "ignored" else {Key(): 1}.setdefault
    signal.signal(number, handler)
    del handler
    signal.raise_signal(number)
    signal.signal(number, signal.SIG_DFL)
    return 1 if state["compared"] == 1 else 0


def check(**p):
    answered = route("ignored") + route("replaced")
    if SEEN:
        raise RuntimeError(SEEN[0])
    return answered
