# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception|timeout
# value: 2
# The eighty-third round took C's `__import__` out of its own gate's tools and frame (the eighty-second round's shape,
# a relative dotted name without a `fromlist`, frees a name before C formats it). But the gates made before
# `seal_import` took `builtins.__import__` as a tool while it was still C's: the buffered streams' `__new__` gate
# (`_io.BufferedReader.__new__` and its three siblings) held it as a positional default, and a function's
# `__defaults__` is the code's to read (the hook refuses it for the bootstrap's boxes only). With C's function taken
# there, the shape ran C's code again: the KeyError named `''kg82.a'`, a read of freed memory. Routes: the buffered
# reader's `__new__` read directly, and a walk of every function in the class dicts of `_io`'s types (`inspect`'s
# way of finding a default). Answers 1 a route where no default held C's `__import__`, or C formatted the name right.
import _io
import sys
import types

BUILTIN = type(len)


def c_import_in(values):
    for value in values or ():
        if type(value) is BUILTIN and value.__name__ == "__import__" and value is not __import__:
            return value
    return None


def from_the_reader():
    new = vars(_io.BufferedReader).get("__new__")
    return c_import_in(getattr(new, "__defaults__", None)) if type(new) is types.FunctionType else None


def from_a_walk():
    for name in sorted(vars(_io)):
        kind = vars(_io)[name]
        if type(kind) is not type:
            continue
        for attribute in vars(kind).values():
            if type(attribute) is types.FunctionType:
                found = c_import_in(attribute.__defaults__)
                if found is not None:
                    return found
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
        raise RuntimeError(f"C's __import__, taken from a gate's defaults, formatted a name it freed: {text!r}")
    return 1


def check(**p):
    return route(from_the_reader()) + route(from_a_walk())
