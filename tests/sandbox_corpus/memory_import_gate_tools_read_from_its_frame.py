# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception|timeout
# value: 2
# The eighty-second round made `builtins.__import__` a gate that steers CPython 3.11.7's one `__import__` shape that
# frees a name before formatting it (a relative dotted name without a `fromlist`) to importlib's Python twin, and keeps
# C's function in the gate's keyword defaults, refused to every reader. But a gate's frame is the code's to read: its
# locals held C's `__import__` (the tools it unpacked, and the tools tuple itself), and a traceback through the gate
# (any failed `__import__`) or a callback the gate runs (the level's `__index__`, looking one frame up) hands that
# frame over. With C's function taken there, the freed-name shape runs C's code again: the KeyError names `''kg82.a'`.
# Answers 1 a route where no frame the gate runs in showed C's function, or C formatted the name it built.
import sys
import types

BUILTIN = type(len)


def from_traceback():
    try:
        __import__("zz_no_such_module_83")
    except ImportError as error:
        tb = error.__traceback__
        while tb is not None:
            found = c_function_in(tb.tb_frame.f_locals)
            if found is not None:
                return found
            tb = tb.tb_next
    return None


class Level:
    seen = None

    def __index__(self):
        frame = sys._getframe(1)
        while frame is not None and Level.seen is None:
            Level.seen = c_function_in(frame.f_locals)
            frame = frame.f_back
        return 0


def from_a_callback():
    __import__("json", None, None, None, Level())
    return Level.seen


def c_function_in(values):
    for value in values.values():
        for item in (value if type(value) is tuple else (value,)):
            if type(item) is BUILTIN and item.__name__ == "__import__" and item is not __import__:
                return item
    return None


def route(importer):
    if importer is None:
        return 1
    sys.modules["pkg82.a.b"] = types.ModuleType("pkg82.a.b")  # its parent `pkg82.a` is missing
    try:
        try:
            importer("a.b", {"__package__": "pkg82", "__name__": "pkg82.m"}, None, None, 1)
        except KeyError as error:
            text = str(error)
        else:
            text = ""
    finally:
        del sys.modules["pkg82.a.b"]
    if "'pkg82.a'" not in text:
        raise RuntimeError(f"C's __import__, taken from its gate's frame, formatted a name it freed: {text!r}")
    return 1


def check(**p):
    return route(from_traceback()) + route(from_a_callback())
