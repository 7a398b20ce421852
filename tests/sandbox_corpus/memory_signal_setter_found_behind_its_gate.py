# expect: forbidden
# expect-kernel: ok|crashed|memory_limit|exception
# C's `signal.signal` itself, wherever a gate in front of it keeps it, used to install a C callable handler that
# replaces itself from inside its own call (CPython 3.11.7: C calls a handler by a borrowed reference from its table,
# so a handler `d.get` that alone held its dict, whose key's `__eq__` sets the signal's handler anew, is freed with
# the dict while the lookup runs, and the lookup goes on over the keys of the dict the code makes next). The search
# walks whatever a gate shows the code: its defaults and keyword defaults, closure cells, `__wrapped__`, the tuples,
# lists and dicts in them, and the locals of every frame a signal handler gets while the gate runs (an interval timer
# firing into a loop of `signal.signal` calls: C runs pending handlers before it sets one). Reading where the
# bootstrap keeps C's setter is refused; without the hook native code is assumed anyway.
import _signal
import signal
import sys
import time

SEEN = []
HELD = []
FOUND = []
REFUSED = []
WALKING = []


def is_setter(obj):
    return (type(obj).__name__ == "builtin_function_or_method" and getattr(obj, "__name__", None) == "signal"
            and type(getattr(obj, "__self__", None)) is type(sys)
            and getattr(obj.__self__, "__name__", None) == "_signal")


def walk(start, depth=5):
    todo, seen = [(start, 0)], set()
    while todo and not REFUSED:
        obj, level = todo.pop()
        if id(obj) in seen or level > depth or type(obj) is type(sys):
            continue
        seen.add(id(obj))
        if is_setter(obj):
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
        elif type(obj).__name__ == "frame":
            parts.extend(obj.f_locals.values())
            parts.append(obj.f_back)
        elif isinstance(obj, dict):
            parts.extend(obj.values())
        elif isinstance(obj, (tuple, list)):
            parts.extend(obj)
        todo.extend((part, level + 1) for part in parts if part is not None)


class Marker:
    def __init__(self, number):
        self.number = number

    def __eq__(self, other):
        SEEN.append("a signal handler compared a key of a dict the code made after its own was freed")
        return False

    def __hash__(self):
        return self.number


def replaced_inside(setter):
    number = int(signal.SIGUSR1)
    state = {"compared": 0}

    class Key:
        def __eq__(self, other):
            state["compared"] += 1
            if state["compared"] == 1:
                setter(number, 1)  # SIG_IGN: the bound method's last reference
                HELD.append({Marker(number): 1})  # takes the freed dict's object
            return False

        def __hash__(self):
            return number

    setter(number, {Key(): 1}.get)
    signal.raise_signal(number)
    setter(number, 0)


def check(**p):
    def seen_frame(signum, frame):
        if not FOUND and not REFUSED and not WALKING:
            WALKING.append(signum)
            walk(frame)
            WALKING.clear()

    signal.signal(signal.SIGALRM, seen_frame)
    signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)
    deadline = time.monotonic() + 0.05
    while not FOUND and not REFUSED and time.monotonic() < deadline:
        signal.signal(signal.SIGUSR2, signal.SIG_IGN)
        signal.signal(signal.SIGUSR2, len)
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    for start in (_signal.signal, signal.signal, _signal.getsignal, signal.getsignal, vars(_signal)):
        walk(start)
    if FOUND:
        replaced_inside(FOUND[0])
    if SEEN:
        raise RuntimeError(SEEN[0])
    return len(FOUND)
