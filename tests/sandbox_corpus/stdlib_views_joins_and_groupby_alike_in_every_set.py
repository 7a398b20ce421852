# expect: ok
# expect-kernel: ok
# value: 62
# Honest twin of the fifty-fifth round's seals (a memoryview's comparisons and hash, `bytearray.join`,
# `itertools.groupby`, `atexit.unregister`): what a check does with them answers the same in every set, with the
# hook's gates and with C's own code: views of one format and of two (struct's way), shapes, strides, NaNs and signed
# zeros, other buffers, a standard-size format, released views, hashes of read-only views as keys, joins of bytes,
# bytearrays, views and generators, groupby with and without a key, groups read late or not at all, keys that raise,
# atexit's registrations dropped by equality, errors by message; `itertools.accumulate` (sixtieth round's seal) with
# and without a function and an initial value, of numbers, texts and lists, read in steps; cells compared (sixty-first
# round's seals): by their contents, empty ones first, orders refused between unorderable contents; weak proxies
# compared with their referents and each other, a dead one refused; `iter(callable, sentinel)` (sixty-second round's
# seal): chunks read to the sentinel, a StopIteration of the callable ending it, an error leaving it going, pickled;
# `collections.Counter` (sixty-third round's seal): counted from texts, lists, mappings and keywords, counts of other
# number types, the helper on a plain dict and on a dict whose item store is its own, the errors for a non-iterable
# and an unhashable element; `itertools.islice` and `zip_longest` (the same round's seal): slices with and without
# bounds and steps, what they leave of their source, longest zips with and without a fill, their errors;
# `bytearray(...)` and `__init__` again (sixty-fifth round's seal): from counts, texts, buffers, lists and generators,
# their errors; mapping proxies (sixty-sixth round's seal): compared and joined with dicts and each other, a
# signature's ordered parameters, classes' own, orders refused; `defaultdict` and a staticmethod called (sixty-eighth
# round's seal): factories of lists and counts, none, one that raises, a subclass's item store, a function called;
# properties got, set, deleted and missing a setter or deleter, a codec search function registered, looked up by
# another spelling, used and unregistered (sixty-ninth round's seals); `sys.unraisablehook` (seventieth round's hold):
# a C bound method, a Python function that sets the hook back from inside itself, a callable instance, each given the
# exceptions of a `__del__` and a weak reference callback; `__isabstractmethod__` (seventy-third round's seal) of
# properties, classmethods and staticmethods over flagged, plain, failing and raising objects, and abc's classes.
import array
import atexit
import itertools
import operator
import struct
import types
import weakref


def check(**p):
    q, d = memoryview(struct.pack("<2q", 1, -2)).cast("q"), memoryview(struct.pack("<2d", 1.0, -2.0)).cast("d")
    nan = memoryview(struct.pack("d", float("nan"))).cast("d")
    released = memoryview(b"x")
    released.release()
    ro = memoryview(b"abc")
    results = [
        q == d, q != memoryview(struct.pack("<2d", 1.0, 2.0)).cast("d"), q == array.array("q", [1, -2]),
        memoryview(b"abc") == b"abc", operator.ne(b"abd", memoryview(bytearray(b"abc"))), nan != nan,
        memoryview(struct.pack("dd", 0.0, -0.0)).cast("d") == array.array("d", [-0.0, 0.0]),
        memoryview(bytes(6)).cast("B", (2, 3)) == memoryview(bytes(6)).cast("B", (2, 3)),
        memoryview(bytes(6)).cast("B", (2, 3)) != memoryview(bytes(6)).cast("B", (3, 2)),
        memoryview(b"abcdef")[::2] == b"ace", memoryview(array.array("u", "ab")) != memoryview(array.array("u", "ab")),
        released == released and released != memoryview(b"x"), (memoryview(b"ab") == 3) is False,
        memoryview(b"abc") in [b"x", b"abc"], hash(ro) == hash(b"abc") and hash(ro[::2]) == hash(b"ac"),
        {memoryview(b"k"): 1}[b"k"] == 1,
    ]
    for view, error in ((memoryview(bytearray(b"a")), "cannot hash writable memoryview object"),
                        (memoryview(bytes(8)).cast("q"), "memoryview: hashing is restricted to formats 'B', 'b' or 'c'")):
        try:
            hash(view)
        except ValueError as exc:
            results.append(str(exc) == error)
    sep = bytearray(b", ")
    results.append(sep.join([b"a", bytearray(b"b"), memoryview(b"c")]) == bytearray(b"a, b, c")
                   and type(sep.join(x for x in (b"q",))) is bytearray and bytearray().join([]) == b"")
    try:
        sep.join(3)
    except TypeError as exc:
        results.append(str(exc) == "can only join an iterable")
    rows = [("a", 1), ("a", 2), ("b", 3), ("a", 4)]
    grouped = itertools.groupby(rows, key=lambda row: row[0])
    results.append([(k, [v for _, v in g]) for k, g in grouped] == [("a", [1, 2]), ("b", [3]), ("a", [4])])
    results.append([k for k, _ in itertools.groupby("aabccc")] == ["a", "b", "c"])
    groups = list(itertools.groupby("aabb"))
    results.append([list(g) for _, g in groups] == [[], []] and list(itertools.groupby([])) == [])
    first_key, first_group = next(itertools.groupby([1, 1, 2]))
    results.append(first_key == 1 and list(first_group) == [1, 1] and repr(first_group).startswith("<itertools._grouper"))
    try:
        list(itertools.groupby([1, 0], key=lambda x: 1 // x))
    except ZeroDivisionError:
        results.append(True)
    results.append(repr(itertools.groupby("")).startswith("<itertools.groupby object at "))
    results.append(list(itertools.accumulate([1, 2, 3])) == [1, 3, 6]
                   and list(itertools.accumulate([3, 1, 4], max, initial=2)) == [2, 3, 3, 4]
                   and list(itertools.accumulate("abc")) == ["a", "ab", "abc"]
                   and list(itertools.accumulate([[1], [2]], operator.add, initial=[])) == [[], [1], [1, 2]]
                   and list(itertools.accumulate([], initial=5)) == [5] and list(itertools.accumulate([])) == [])
    steps = itertools.accumulate(iter([2, 3, 4]), operator.mul)
    results.append((next(steps), list(steps), list(steps), iter(steps) is steps) == (2, [6, 24], [], True))
    calls = []
    kept = atexit.register(calls.append, "kept")
    dropped = atexit.register(calls.append, "dropped")  # bound methods of one list: equal, not the same
    results.append(kept == dropped and kept is not dropped)
    results.append(atexit.unregister(calls.append) is None and atexit.unregister(len) is None and calls == [])
    cell, empty = types.CellType, types.CellType()
    closure = (lambda: rows).__closure__[0]
    results.append((cell(1) == cell(1), cell(1) < cell(2.5), empty < cell(0), empty == cell(), cell(1) <= empty,
                    closure == cell(rows), cell(float("nan")) != cell(float("nan")), cell(1).__eq__(1))
                   == (True, True, True, True, False, True, True, NotImplemented))
    try:
        results.append(cell(1) < cell("a"))
    except TypeError as exc:
        results.append(str(exc) == "'<' not supported between instances of 'int' and 'str'")
    target, other = struct.Struct("q"), struct.Struct("q")
    proxy = weakref.proxy(target)
    results.append((proxy == target, target == proxy, proxy != weakref.proxy(other), proxy == weakref.proxy(target),
                    weakref.proxy(len) == len, proxy in [1, target]) == (True, True, True, True, True, True))
    dead = weakref.proxy(struct.Struct("d"))
    try:
        results.append(dead == 1)
    except ReferenceError as exc:
        results.append(str(exc) == "weakly-referenced object no longer exists")
    import io
    import pickle
    stream = io.BytesIO(b"abcdefg")
    chunks = iter(lambda: stream.read(3), b"")
    results.append((list(chunks), next(chunks, "done"), iter(chunks) is chunks) == ([b"abc", b"def", b"g"], "done", True))
    steps = iter([1, 2, 3, 4])
    results.append(list(iter(lambda: next(steps), 3)) + list(iter(steps.__next__, 0)) == [1, 2, 4])
    counter = iter(range(10)).__next__
    going = iter(lambda: 1 // (counter() % 3), None)
    seen = []
    for _ in range(4):
        try:
            seen.append(next(going))
        except ZeroDivisionError:
            seen.append("zero")
    results.append(seen == ["zero", 1, 0, "zero"] and list(pickle.loads(pickle.dumps(iter(int, 0)))) == [])
    try:
        iter(1, 2)
    except TypeError as exc:
        results.append(str(exc) == "iter(v, w): v must be callable")
    results.extend(counters())
    results.extend(slices_and_longest_zips())
    results.extend(inits_and_proxies())
    results.append(signal_handlers())
    results.append(expat_handlers())
    results.append(display_hooks())
    results.append(abstract_flags())
    return sum(1 for r in results if r is True)


def display_hooks():
    """What a "single"-mode compile displays (doctest's, codeop's): a C bound method, a function that sets the hook
    back from inside itself, a callable instance; displays in branches and of several statements on a line; nested
    code displaying nothing; the errors of an incomplete and of a multi-statement text."""
    import codeop
    import doctest
    import io
    import sys

    seen = []

    class Hook:
        def __call__(self, value):
            seen.append(("instance", value))

    def once(value):
        sys.displayhook = seen.append
        seen.append(("function", value))

    for hook in (seen.append, once, Hook()):
        sys.displayhook = hook
        exec(compile("1 + 1; 'a' 'b'\n", "<s>", "single"), {})
    sys.displayhook = seen.append
    exec(compile("if True:\n    x = 5\n    x * 2\n    def f(): 3\n    class C: 4\n", "<s>", "single"), {})
    sys.displayhook = sys.__displayhook__
    errors = []
    for text in ("1\n2\n", "x = ("):
        try:
            compile(text, "<s>", "single")
        except SyntaxError as exc:
            errors.append(exc.msg)
    test = doctest.DocTestParser().get_doctest(">>> [i * i for i in range(3)]\n[0, 1, 4]\n>>> None\n>>> 'x'\n'x'\n",
                                               {}, "t", "<t>", 0)
    runner, out = doctest.DocTestRunner(), io.StringIO()
    runner.run(test, out=out.write)
    return ((seen, errors, codeop.compile_command("if 1:"), runner.failures, runner.tries)
            == ([2, "ab", ("function", 2), "ab", ("instance", 2), ("instance", "ab"), 10],
                ["multiple statements found while compiling a single statement", "'(' was never closed"], None, 0, 3))


def inits_and_proxies():
    import inspect

    again = bytearray(b"zz")
    again.__init__([1, 2])
    results = [(bytearray(3), bytearray(range(5)), bytearray("h\u00e9", "utf-8"), bytearray(b"x"), again,
                bytearray(memoryview(b"abcdef")[::2]), bytearray(i for i in (7, 8)), bytearray(source="ab",
                                                                                               encoding="ascii"))
               == (b"\0\0\0", b"\0\1\2\3\4", b"h\xc3\xa9", b"x", b"\1\2", b"ace", b"\7\x08", b"ab")]
    errors = []
    for make in (lambda: bytearray("x"), lambda: bytearray(-1), lambda: bytearray([256]), lambda: bytearray(1.5),
                 lambda: bytearray(b"", "ascii"), lambda: bytearray(1, 2, 3, 4)):
        try:
            make()
        except (TypeError, ValueError) as exc:
            errors.append(str(exc))
    results.append(errors == ["string argument without an encoding", "negative count", "byte must be in range(0, 256)",
                              "cannot convert 'float' object to bytearray", "encoding without a string argument",
                              "bytearray() takes at most 3 arguments (4 given)"])
    proxy = types.MappingProxyType({"a": 1})

    def first(a, b):
        return a

    def second(b, a):
        return a

    results.append((proxy == {"a": 1}, proxy != {"a": 2}, proxy == types.MappingProxyType({"a": 1}),
                    operator.eq({"a": 1}, proxy), proxy == 1) == (True, True, True, True, False))
    results.append((proxy | {"b": 2}, {"b": 2} | proxy, proxy | proxy) == ({"a": 1, "b": 2}, {"b": 2, "a": 1},
                                                                           {"a": 1}))
    results.append((inspect.signature(first).parameters == inspect.signature(first).parameters,
                    inspect.signature(first).parameters == inspect.signature(second).parameters) == (True, False))
    results.append((vars(int) == vars(int), vars(int) != vars(float), "__add__" in (vars(int) | {})) == (True, True,
                                                                                                     True))
    try:
        operator.lt(proxy, {"a": 1})
    except TypeError as exc:
        results.append(str(exc) == "'<' not supported between instances of 'dict' and 'dict'")
    try:
        proxy |= {"b": 1}
    except TypeError as exc:
        results.append(str(exc) == "'|=' is not supported by mappingproxy; use '|' instead")
    import collections

    class Stored(collections.defaultdict):
        def __setitem__(self, key, value):
            super().__setitem__(key, value * 10)

    groups, counts, stored = collections.defaultdict(list), collections.defaultdict(int), Stored(lambda: 4)
    for word in ["a", "bb", "a", "ccc", "bb", "a"]:
        groups[len(word)].append(word)
        counts[word] += 1
    missing = []
    for table in (collections.defaultdict(), collections.defaultdict(lambda: 1 // 0)):
        try:
            table["k"]
        except (KeyError, ZeroDivisionError) as exc:
            missing.append((type(exc).__name__, exc.args))
    results.append((dict(groups), dict(counts), stored["x"], stored, missing)
                   == ({1: ["a", "a", "a"], 2: ["bb", "bb"], 3: ["ccc"]}, {"a": 3, "bb": 2, "ccc": 1}, 4, {"x": 40},
                       [("KeyError", ("k",)), ("ZeroDivisionError", ("integer division or modulo by zero",))]))
    results.append((staticmethod(len)("abc"), staticmethod(max)(1, 5, key=lambda n: -n)) == (3, 1))

    class Box:  # properties (sixty-ninth round's seal): got, set, deleted, missing accessors, from the class
        def __init__(self):
            self._v = 1

        @property
        def v(self):
            return self._v

        @v.setter
        def v(self, value):
            self._v = value * 2

        @v.deleter
        def v(self):
            self._v = "gone"

        size = property(len)

    box, errors = Box(), []
    box.v = 5
    seen = [box.v]
    del box.v
    seen.append(box.v)
    for op in (lambda: setattr(box, "size", 1), lambda: delattr(box, "size")):
        try:
            op()
        except AttributeError as exc:
            errors.append(str(exc))
    results.append((seen, errors, type(Box.v).__name__, Box.v.__get__(box), Box.size.fget is len)
                   == ([10, "gone"], [f"property 'size' of {Box.__qualname__!r} object has no {what}"
                                      for what in ("setter", "deleter")], "property", "gone", True))
    import codecs  # the codec registry (the same round's seal): a search function of the check's own

    rot = codecs.lookup("rot13")

    def search(name):
        return codecs.CodecInfo(rot.encode, rot.decode, name="twin69") if name == "twin_69" else None

    codecs.register(search)
    found = [codecs.lookup("Twin 69").name, codecs.encode("abc", "twin-69")]
    codecs.unregister(search)
    codecs.unregister(search)
    try:
        codecs.lookup("twin_69_fresh")
    except LookupError as exc:
        found.append(str(exc))
    results.append(found == ["twin69", "nop", "unknown encoding: twin_69_fresh"])
    results.append(unraisable_hooks())
    return results


def signal_handlers():
    """Signal handlers of every kind (the seventy-first round's seal): a Python function, a C bound method, a callable
    instance, one that sets its signal's handler anew from inside itself; what `getsignal` and `signal` answer, the
    defaults, a handler's error and a bad handler's."""
    import signal

    class Handler:
        def __call__(self, signum, frame):
            seen.append(("instance", signum))

    def once(signum, frame):
        signal.signal(signum, signal.SIG_IGN)
        seen.append(("function", signum, type(frame).__name__))

    seen, counted = [], {}
    number = signal.SIGUSR1
    answers = [signal.signal(number, once) == signal.SIG_DFL, signal.getsignal(number) is once]
    signal.raise_signal(number)
    signal.raise_signal(number)  # ignored now
    answers.append(signal.getsignal(number) is signal.SIG_IGN)
    for handler in (counted.setdefault, Handler()):
        old = signal.signal(number, handler)
        answers.append(signal.getsignal(number) == handler)
        signal.raise_signal(number)
        answers.append(old is not None)
    signal.signal(number, seen.append)
    try:
        signal.raise_signal(number)
    except TypeError as exc:
        answers.append(str(exc) == "list.append() takes exactly one argument (2 given)")
    try:
        signal.signal(number, "handler")
    except TypeError as exc:
        answers.append(str(exc) == "signal handler must be signal.SIG_IGN, signal.SIG_DFL, or a callable object")
    answers.append(signal.signal(number, signal.SIG_DFL) == seen.append)
    return all(answers) and len(answers) == 10 and seen == [("function", number, "frame"), ("instance", number)] \
        and list(counted) == [int(number)]


def expat_handlers():
    """`pyexpat`'s handlers of every kind (the seventy-first round's seal): a Python function, C bound methods, a
    callable instance, one that clears itself from inside its own call; what the parser answers for them, a handler
    that is not callable, deleting one, SAX's handlers (bound methods of the code's own)."""
    import io
    import xml.parsers.expat as expat
    import xml.sax

    seen, counted = [], {}

    class Text:
        def __call__(self, data):
            seen.append(("text", data))

    def once(name, attrs):
        parser.StartElementHandler = None
        seen.append(("start", name, attrs))

    parser = expat.ParserCreate()
    parser.StartElementHandler, parser.EndElementHandler = once, counted.setdefault
    parser.CharacterDataHandler, parser.CommentHandler = Text(), seen.append
    answers = [parser.StartElementHandler is once, parser.EndElementHandler == counted.setdefault]
    parser.Parse(b"<a x='1'>t<!--c--><b/></a>", True)
    answers += [seen == [("start", "a", {"x": "1"}), ("text", "t"), "c"], list(counted) == ["b", "a"],
                parser.StartElementHandler is None]
    try:
        del parser.CommentHandler
    except RuntimeError as exc:
        answers.append(str(exc) == "Cannot delete attribute")
    bad = expat.ParserCreate()
    bad.StartElementHandler = 5
    try:
        bad.Parse(b"<a/>", True)
    except TypeError as exc:
        answers.append(str(exc) == "'int' object is not callable")

    class Names(xml.sax.ContentHandler):
        def startElement(self, name, attrs):
            seen.append(name)

    xml.sax.parse(io.BytesIO(b"<r><s/></r>"), Names())
    return all(answers) and len(answers) == 7 and seen[-2:] == ["r", "s"]


def unraisable_hooks():
    import sys

    class Dies:
        def __del__(self):
            raise ValueError("from a __del__")

    class Target:
        pass

    class Hook:
        def __call__(self, unraisable):
            seen.append(("instance", unraisable.exc_type.__name__))

    def once(unraisable):
        sys.unraisablehook = sys.__unraisablehook__
        seen.append(("function", str(unraisable.exc_value)))

    seen = []
    for hook in (seen.append, once, Hook()):
        sys.unraisablehook = hook
        Dies()
        sys.unraisablehook = hook
        target = Target()
        keep = weakref.ref(target, lambda ref: 1 / 0)
        del target, keep
    sys.unraisablehook = sys.__unraisablehook__
    return ([s if type(s) is tuple else type(s).__name__ for s in seen]
            == ["UnraisableHookArgs", "UnraisableHookArgs", ("function", "from a __del__"),
                ("function", "division by zero"), ("instance", "ValueError"), ("instance", "ZeroDivisionError")])


def slices_and_longest_zips():
    source = iter(range(10))
    firsts = list(itertools.islice(source, 2, 7, 2))
    rest = list(source)  # what islice consumed: up to the last item it gave, and no further
    results = [(firsts, rest, list(itertools.islice("abcdef", 4)), list(itertools.islice(range(5), None)),
                list(itertools.islice(range(9), 1, None, 3)), list(itertools.islice([], 2, 2)))
               == ([2, 4, 6], [7, 8, 9], ["a", "b", "c", "d"], [0, 1, 2, 3, 4], [1, 4, 7], []),
               (list(itertools.zip_longest("ab", [1, 2, 3], fillvalue="-")), list(itertools.zip_longest()),
                list(itertools.zip_longest([1], iter([]))))
               == ([("a", 1), ("b", 2), ("-", 3)], [], [(1, None)])]
    errors = []
    for make in (lambda: itertools.islice(range(3), -1), lambda: itertools.islice(range(3), 0, 5, 0),
                 lambda: itertools.islice(range(3), "x", 2), lambda: itertools.islice(5, 1),
                 lambda: itertools.zip_longest([], fill=1)):
        try:
            make()
        except (TypeError, ValueError) as exc:
            errors.append(str(exc))
    results.append(errors == ["Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.",
                              "Step for islice() must be a positive integer or None.",
                              "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.",
                              "'int' object is not iterable", "zip_longest() got an unexpected keyword argument"])
    return results


class Logged(dict):
    """A dict of the code's own whose item store is its own: the counting helper's general way (C's and the gate's)."""

    def __setitem__(self, key, value):
        self.setdefault("stores", 0)
        dict.__setitem__(self, "stores", dict.get(self, "stores") + 1)
        dict.__setitem__(self, key, value)


def counters():
    import _collections
    import collections
    import decimal
    import fractions

    c = collections.Counter("abracadabra")
    c.update(["a", "z"], b=3)
    c.update({"z": 2})
    numbers = collections.Counter({"x": fractions.Fraction(1, 2), "y": decimal.Decimal("1.5"), "f": 0.25})
    numbers.update("xyff")
    plain, logged = {"q": 1}, Logged()
    _collections._count_elements(plain, "qqr")
    _collections._count_elements(logged, "ab")
    results = [(c.most_common(3), c["z"], sorted(collections.Counter(i % 3 for i in range(10)).items()))
               == ([("a", 6), ("b", 5), ("z", 3)], 3, [(0, 4), (1, 3), (2, 3)]),
               (numbers["x"], numbers["y"], numbers["f"], plain, logged)
               == (fractions.Fraction(3, 2), decimal.Decimal("2.5"), 2.25, {"q": 3, "r": 1},
                   {"stores": 2, "a": 1, "b": 1})]
    for bad, message in ((5, "'int' object is not iterable"), ([[1]], "unhashable type: 'list'")):
        try:
            collections.Counter(bad)
        except TypeError as exc:
            results.append(str(exc) == message)
    return results


def abstract_flags():
    import abc

    class Flag:
        def __init__(self, value):
            self.__isabstractmethod__ = value

    class Raises:
        @property
        def __isabstractmethod__(self):
            raise KeyError("flag")

    class Missing:
        def __getattr__(self, name):
            raise AttributeError(name)

    def f(self):
        return "f"

    answers = [property().__isabstractmethod__, property(f).__isabstractmethod__,
               property(Missing(), None, Flag(1)).__isabstractmethod__, property(Flag(0), Flag([])).__isabstractmethod__,
               classmethod(Flag("x")).__isabstractmethod__, staticmethod(len).__isabstractmethod__,
               staticmethod(abc.abstractmethod(lambda: 0)).__isabstractmethod__]
    for holder in (property(Raises()), classmethod(Raises())):
        try:
            answers.append(holder.__isabstractmethod__)
        except KeyError as exc:
            answers.append(str(exc))

    class Abs(abc.ABC):
        @property
        @abc.abstractmethod
        def a(self): ...

        @classmethod
        @abc.abstractmethod
        def b(cls): ...

        @staticmethod
        @abc.abstractmethod
        def c(): ...

        d = property(f)

    class Concrete(Abs):
        a, b, c = property(f), classmethod(f), staticmethod(f)

    answers += [sorted(Abs.__abstractmethods__), sorted(Concrete.__abstractmethods__), Concrete().a]
    return answers == [False, False, True, False, True, False, True, "'flag'", "'flag'", ["a", "b", "c"], [], "f"]
