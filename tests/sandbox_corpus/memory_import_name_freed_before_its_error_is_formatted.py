# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception|timeout
# value: 2
# CPython 3.11.7's `__import__` of a relative dotted name without a `fromlist` (`__import__("a.b", g, None, None, 1)`)
# imports the module, builds its parent's name, looks it up in `sys.modules` and, where it is missing, frees the name
# before it formats it into its KeyError ("%R not in sys.modules as expected"; fixed upstream after 3.11). The repr C
# makes of the freed name takes the name's own block (a 7-character name and its 9-character repr are one size
# class), so C reads the name from memory it is writing: the message names `''kg82.a'` (plain 3.11.7: 3 of 3 runs).
# Routes: `builtins.__import__`, and the `__import__` C hands `importlib._bootstrap._handle_fromlist` (the
# interpreter's own, taken by a replaced `_handle_fromlist`). Answers 1 a route where C formatted the name it built;
# without the hook native code is assumed anyway.
import sys
import types


def handed():
    import importlib._bootstrap as bootstrap

    taken = []
    original = bootstrap._handle_fromlist

    def take(module, fromlist, import_, **named):
        taken.append(import_)
        return original(module, fromlist, import_, **named)

    bootstrap._handle_fromlist = take
    try:
        from json import decoder  # noqa: F401  (a package with a fromlist: C calls `_handle_fromlist`)
    finally:
        bootstrap._handle_fromlist = original
    return taken[0]


def route(importer):
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
        raise RuntimeError(f"__import__ formatted a name it freed: {text!r}")
    return 1


def check(**p):
    return route(__import__) + route(handed())
