# expect: forbidden
# expect-kernel: ok|crashed|memory_limit|exception
# C's `compile()` itself, wherever a gate in front of it keeps it, used to make a "single"-mode code whose PRINT_EXPR
# calls a display hook that replaces itself from inside its own call (CPython 3.11.7: PRINT_EXPR reads the hook from
# the `sys` module's dict by a borrowed reference, so a hook `lst.count` that alone held its list, whose item's `__eq__`
# sets the hook back, is freed with the list while the count runs, and the count goes on over the items of the list
# the code makes next). The search walks whatever a gate shows the code: its defaults and keyword defaults, closure
# cells, `__wrapped__`, globals, the tuples, lists and dicts in them, from `builtins.compile` and the `builtins` dict
# first, then the locals of every frame a signal handler gets while "single" compiles run (an interval timer firing
# into a loop of them). Reading where the bootstrap keeps C's compile is refused; without the hook native code is
# assumed anyway.
import builtins
import signal
import sys
import time

SEEN = []
HELD = []
FOUND = []
REFUSED = []
WALKING = []


def is_compile(obj):
    return (type(obj).__name__ == "builtin_function_or_method" and getattr(obj, "__name__", None) == "compile"
            and getattr(obj, "__self__", None) is builtins)


def walk(start, depth=6):
    todo, seen = [(start, 0)], set()
    while todo and not REFUSED:
        obj, level = todo.pop()
        if id(obj) in seen or level > depth or type(obj) is type(sys):
            continue
        seen.add(id(obj))
        if is_compile(obj):
            FOUND.append(obj)
            return
        parts = []
        if type(obj).__name__ == "function":
            for name in ("__kwdefaults__", "__defaults__", "__closure__", "__wrapped__", "__globals__"):
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
    def __eq__(self, other):
        SEEN.append("the display hook compared an item of a list the code made after its own was freed")
        return False

    __hash__ = object.__hash__


def replaced_inside(compile_):
    state = {"compared": 0}

    class Item:
        def __eq__(self, other):
            state["compared"] += 1
            if state["compared"] == 1:
                sys.displayhook = sys.__displayhook__  # the bound method's last reference
                HELD.append([Marker(), Marker(), Marker(), Marker()])  # takes the freed list's object
            return False

        __hash__ = object.__hash__

    sys.displayhook = [Item(), Item(), Item(), Item()].count
    try:
        exec(compile_("Item()", "<single>", "single"), {"Item": Item})
    finally:
        sys.displayhook = sys.__displayhook__


def check(**p):
    def seen_frame(signum, frame):
        if not FOUND and not REFUSED and not WALKING:
            WALKING.append(signum)
            walk(frame)
            WALKING.clear()

    for start in (builtins.compile, vars(builtins)):
        walk(start)
    signal.signal(signal.SIGALRM, seen_frame)
    signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)
    deadline = time.monotonic() + 0.05
    while not FOUND and not REFUSED and time.monotonic() < deadline:
        compile("if True:\n    1\n    2\n", "<s>", "single")
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    if FOUND:
        replaced_inside(FOUND[0])
    if SEEN:
        raise RuntimeError(SEEN[0])
    return len(FOUND)
