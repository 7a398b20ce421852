"""Randomness a Python check draws that the sandbox gate's probes neither pin nor seed: a static reading behind
`nondeterministic_check`, found unrun.

The probes seed and pin the `random` module and every generator seeded from the system, and move the wall clocks
(`coworkenv.checks.run_setup`); a generator seeded with a value of the check's own is a fixed sequence they leave
alone. What they cannot reach: the OS's randomness (`os.urandom`, `uuid.uuid4`, `secrets`' tokens), the clocks that
count from an arbitrary start (`time.perf_counter`, `monotonic`, `process_time`), the process (`os.getpid`), an
object's address (`id`) and the hash of a string or an object (randomised per process) used for more than identity,
the sandbox's scratch path, temporary names and ids, a set's order (`coworkenv.validate._run_draws`), a clock's digits
finer than a day (the probes move the clocks by whole days): its value modulo (`time.time_ns() % 1000`, `divmod`,
`math.modf`), its time of day (`now.microsecond`, `now.hour`, `localtime()[5]`, `strftime('%S')`,
`attrgetter('second')(now)`, `(now - midnight).seconds`), its text cut past the date (`str(time.time())[-1]`,
`repr(now)[-3:]`, a cut with a computed bound) or its other digits, bytes, bits and hashes
(`hex(time.time_ns())[-3:]`, `t.to_bytes(...)`, `t.bit_count()`, `hashlib.sha256(str(t).encode())`), and a generator
or the module seeded from any of these or from a clock (`random.Random(time.time_ns())`): such a seed looks like the
check's own yet changes every run. A check that judges an agent's work has no use for either, and a check that fails
one agent in a thousand by them passes every probe run, so the reading rejects it unrun. Names bound to such a draw or
a clock read are followed (`t = time.time(); random.Random(t)`), and so are the run-time lookups of a module or its
members (`__import__('os')`, `importlib.import_module`, `sys.modules['os']`, `getattr(os, 'urandom')`,
`vars(os)[...]`, `os.__dict__`, `__builtins__['hash']`, a constant string given to `eval`/`exec`), and so is another
standard module's import of them (`random._urandom`, `uuid.os.urandom`, `threading._time`: `canonical`, read from the
module's source); a member named at run time (`getattr(uuid, 'uuid' + '4')`) of a module holding such randomness counts
as a draw, and so does a path to the kernel's randomness in the check's text (`open('/dev/urandom', 'rb')`)."""

from __future__ import annotations

import ast
import contextlib
import re

from coworkenv.validate._module_lookups import called_name, canonical, constant_text, imported_names, qualified
from coworkenv.validate._run_draws import drawn_per_run, is_address_or_hash

# What draws on randomness no probe controls, by module.
UNREACHED = {"os": frozenset({"urandom", "getrandom", "getpid", "getppid",
                              # the sandbox's draws for each run: its scratch directory, the mapped ids, the counters
                              "getcwd", "getcwdb", "getuid", "geteuid", "getgid", "getegid", "getresuid",
                              "getresgid", "getgroups", "times",
                              # the machine: its size, which a training worker need not share, and the sandbox
                              # answers `sysconf`'s memory pages with a value of its own in every run
                              "cpu_count", "process_cpu_count", "sysconf"}),
             "tempfile": frozenset({"gettempdir", "gettempdirb", "mkstemp", "mkdtemp", "mktemp",
                                    "NamedTemporaryFile", "TemporaryDirectory", "_get_candidate_names"}),
             "pathlib": frozenset({"cwd", "home"}),
             # heap gauges: they move with whatever the run allocated, the payload the agent's state made too
             "sys": frozenset({"getallocatedblocks", "getrefcount", "gettotalrefcount"}),
             "gc": frozenset({"get_count", "get_stats", "get_objects", "get_freeze_count"}),
             "tracemalloc": frozenset({"get_traced_memory", "take_snapshot", "get_tracemalloc_memory"}),
             "_thread": frozenset({"get_ident", "get_native_id"}),
             "uuid": frozenset({"uuid1", "uuid4", "getnode"}),
             "secrets": frozenset({"token_bytes", "token_hex", "token_urlsafe"}),
             "time": frozenset({"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
                                "process_time_ns", "thread_time", "thread_time_ns"}),
             "threading": frozenset({"get_ident", "get_native_id"}), "ssl": frozenset({"RAND_bytes"})}
# The kernel's randomness as files: `/dev/urandom`, `/dev/random`, a hardware generator, the uuid and boot-id files.
_DEVICES = re.compile(r"/dev/(?:u?random|hwrng)\b|/proc/sys/kernel/random/")
# The wall clocks the probes move: a fine reading of the time, but no seed.
_CLOCKS = {"time": frozenset({"time", "time_ns", "clock_gettime", "clock_gettime_ns", "localtime", "gmtime", "ctime"})}
_NOW = frozenset({"now", "utcnow", "today"})  # `datetime.now()`, `date.today()`, however the class was imported
_SEEDERS = frozenset({"Random", "SystemRandom", "seed"})  # `random.Random(x)`, `random.seed(x)`, `rng.seed(x)`


def unpinned_randomness(code: str) -> str | None:
    """What the check draws on that the probes neither pin nor seed (e.g. "`os.urandom(...)`"), or None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    # code the check runs from a constant string (`eval("os.urandom(1)")`) is read as the check's own
    evaluated = [text for node in ast.walk(tree) if isinstance(node, ast.Call) and _leaf(node.func) in
                 ("eval", "exec", "compile") and node.args and (text := constant_text(node.args[0])) is not None]
    if evaluated:
        with contextlib.suppress(SyntaxError):
            tree.body += [statement for text in evaluated for statement in ast.parse(text).body]
    names = imported_names(tree)
    device = next((node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and
                   isinstance(node.value, (str, bytes)) and _DEVICES.search(
                       node.value if isinstance(node.value, str) else node.value.decode("latin-1"))), None)
    if device is not None:
        return f"`{device!r}`, the kernel's randomness read as a file, drawn afresh for every read"
    tainted = _tainted(tree, names)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = called_name(node, names)
        if _unreached(called):
            spelled = ast.unparse(node.func)
            shown = f"`{called}()`" + (f" (reached as `{spelled}`)" if spelled != called else "")
            named = "a member named at run time of a module holding " if str(called).endswith("?") else ""
            return f"{shown}, {named}a value drawn afresh for every run (the OS's randomness, an arbitrary clock, " \
                "the process, the sandbox's scratch path or ids, the machine)"
        leaf = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if leaf in _SEEDERS and any(_draws(arg, names, tainted) for arg in (*node.args, *(k.value for k in
                                                                                          node.keywords))):
            return f"`{ast.unparse(node)}`, a generator seeded from a clock or from randomness of its own"
    drawn = drawn_per_run(tree, names)  # addresses, hashes, a set's order, the scratch path read past a call
    if drawn is not None:
        return drawn
    # after the draws themselves, so that `uuid.uuid4().int % 9` is named by its draw
    for node in ast.walk(tree):
        if _finer_than_a_day(node, names, tainted):
            return f"`{ast.unparse(node)}`, digits of a clock finer than a day, which no probe moves"
    return None


def _unreached(called: str | None) -> bool:
    """Whether a dotted name is randomness no probe controls: `os.urandom`, the same through a module named at run
    time (`?.urandom`) or through another standard module's import of it (`random._urandom`, `uuid.os.urandom`), or a
    name computed at run time on a module that holds such randomness (`uuid.?`)."""
    if called is None:
        return False
    return _unreached_as(called) or _unreached_as(canonical(called))


def _unreached_as(called: str) -> bool:
    module, _, leaf = called.rpartition(".")
    module = module.split(".")[0]
    if module == "?":
        return any(leaf in leaves for leaves in UNREACHED.values())
    return module in UNREACHED and (leaf in UNREACHED[module] or leaf == "?")


def _finer_than_a_day(node: ast.AST, names: dict[str, str], tainted: set[str]) -> bool:
    """A reading of a clock finer than a day, which the probes (moving the clocks by whole days) leave as random as
    it was: its value modulo (`time.time_ns() % 1000`, `divmod`, `math.modf`, `t - int(t)`), the time of day
    (`now.microsecond`, `now.hour`, `now.time()`, `localtime()[5]`, `strftime('%S')`), or the digits of its text
    past the date (`str(time.time())[-1]`, `repr(now)[-3:]`, `isoformat().split('.')[1]`, `.endswith('7')`)."""
    if _clock_bits(node, names, tainted):
        return True
    if isinstance(node, ast.Attribute):
        return node.attr in _TIME_OF_DAY and _draws(node.value, names, tainted)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.Mod, ast.BitAnd)):
            return _draws(node.left, names, tainted)
        return isinstance(node.op, ast.Sub) and _draws(node.left, names, tainted) and any(
            isinstance(part, ast.Call) and _leaf(part.func) in _WHOLE and _draws(part, names, tainted)
            for side in (node.left, node.right) for part in ast.walk(side))
    if isinstance(node, ast.Subscript):
        return _cut_past_the_date(node, names, tainted)
    if isinstance(node, ast.FormattedValue):  # f"{now:%S}"
        return _time_of_day_only(_spec(node)) and _draws(node.value, names, tainted)
    if not isinstance(node, ast.Call):
        return False
    leaf, args = _leaf(node.func), [*node.args, *(k.value for k in node.keywords)]
    if leaf in ("divmod", "modf", "fmod", "remainder") and args:
        return _draws(args[0], names, tainted)
    if leaf == "endswith" and isinstance(node.func, ast.Attribute):
        return _clock_text(node.func.value, names, tainted) is not None
    if leaf in ("time", "timetz") and not args and isinstance(node.func, ast.Attribute) and \
            qualified(node.func, names) is None:  # `now.time()`, not the module's `time.time()`
        return _draws(node.func.value, names, tainted)
    return _time_of_day_only(_formatted(node, names, tainted))


def _clock_bits(node: ast.AST, names: dict[str, str], tainted: set[str]) -> bool:
    """A clock's digits finer than a day reached past its text and fields: its bytes or bits (`t.to_bytes(...)`,
    `t.bit_count()`, `time.time().hex()`, `struct.pack('<d', t)`), a hash of its text showing more than the date
    (`hashlib.sha256(str(time.time_ns()).encode())`), a time-of-day field named by a constant (`getattr(now,
    'second')`, `now.__getattribute__('second')`, `operator.attrgetter('second')(now)`), the time of day as a
    difference (`now - now.replace(hour=0, ...)`, `n.replace(microsecond=0) != n`, `(now - start).seconds`)."""
    if isinstance(node, ast.Attribute):  # `(now - start).seconds`: the difference's part below a day
        return node.attr in ("seconds", "microseconds") and isinstance(node.value, ast.BinOp) and \
            isinstance(node.value.op, ast.Sub) and _draws(node.value.left, names, tainted)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        sides = [node.left, node.right]
        return any(_time_replaced(side, names, tainted) for side in sides) and all(
            _draws(side, names, tainted) for side in sides)
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        # `n.replace(microsecond=0) != n`; an ordering only against the same clock (`n.replace(second=0) < n`)
        replaced = [side for side in (node.left, node.comparators[0]) if _time_replaced(side, names, tainted)]
        other = node.comparators[0] if replaced and replaced[0] is node.left else node.left
        if not replaced or not _draws(other, names, tainted):
            return False
        base = replaced[0].func.value  # type: ignore[attr-defined]
        named = base.target.id if isinstance(base, ast.NamedExpr) else ast.unparse(base)
        return isinstance(node.ops[0], (ast.Eq, ast.NotEq)) or ast.unparse(other) == named
    if not isinstance(node, ast.Call):
        return False
    func, args = node.func, node.args
    if isinstance(func, ast.Attribute) and func.attr in _BITS:
        held = args[0] if isinstance(func.value, ast.Name) and func.value.id in ("int", "float") and args else \
            func.value  # `float.hex(t)` or `t.hex()`
        return _draws(held, names, tainted)
    called = called_name(node, names) or ""
    module = called.partition(".")[0]
    if called in ("struct.pack", "struct.pack_into"):
        return any(_draws(arg, names, tainted) for arg in args[1:])
    if module in _HASHES:
        return any(_clock_text(_unencoded(arg), names, tainted) is not None for arg in args)
    field = None
    if called in ("getattr", "builtins.getattr") and len(args) >= 2:
        field, holder = constant_text(args[1]), args[0]
    elif isinstance(func, ast.Attribute) and func.attr == "__getattribute__" and args:
        field, holder = constant_text(args[0]), func.value
    elif isinstance(func, ast.Call) and (qualified(func.func, names) or "").endswith("attrgetter") and func.args \
            and args:
        field, holder = constant_text(func.args[0]), args[0]
    return field in _TIME_OF_DAY and _draws(holder, names, tainted)


def _time_replaced(expr: ast.expr, names: dict[str, str], tainted: set[str]) -> bool:
    """`now.replace(hour=0, ...)`: a clock with its time of day (or part of it) replaced."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "replace" and \
        any(k.arg in _TIME_OF_DAY for k in expr.keywords) and _draws(expr.func.value, names, tainted)


def _unencoded(expr: ast.expr) -> ast.expr:
    """The text a hash is given as bytes: `s` of `s.encode()` or `bytes(s, 'utf-8')`."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "encode":
        return expr.func.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "bytes" and expr.args:
        return expr.args[0]
    return expr


# What shows a number's low digits as bytes or bits, and the modules whose functions hash what they are given.
_BITS = frozenset({"to_bytes", "bit_count", "hex", "as_integer_ratio"})
_HASHES = frozenset({"hashlib", "zlib", "binascii", "hmac"})
# Other digits than the decimal ones: a clock's text in them shows nothing finer than a day past its prefix.
_RADIX = frozenset({"hex", "oct", "bin"})
_RADIX_SPEC = re.compile(r"[xXob]$")


def _time_of_day_only(shown: str | None) -> bool:
    """Whether a strftime format shows the time of day and no date (`%S`, `%H:%M`, `%f`)."""
    return shown is not None and _DAY_FINER.search(shown) is not None and _DATE_DIRECTIVES.search(shown) is None


# A clock's time of day: the attributes of a date-time or a `struct_time`.
_TIME_OF_DAY = frozenset({"hour", "minute", "second", "microsecond", "tm_hour", "tm_min", "tm_sec"})
_WHOLE = frozenset({"int", "floor", "trunc", "round", "ceil"})
# strftime directives (and format specs of a date-time) that show the time of day, and those that show the date.
_DAY_FINER = re.compile(r"%[-#_0^]*[HIMSfpXTrRkl]")
_DATE_DIRECTIVES = re.compile(r"%[-#_0^]*[YyGmdjbBhFDxcUWVaAuweCgs]")
_TEXT_MAKERS = frozenset({"str", "repr", "ascii", "format", "isoformat", "dumps", "__str__", "__repr__",
                          "__format__"})
_TEXT_KEEPERS = frozenset({"strip", "lstrip", "rstrip", "replace", "lower", "upper", "zfill", "ljust", "rjust"})


def _leaf(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _spec(part: ast.FormattedValue) -> str:
    """The constant text of an f-string field's format spec (`%H:%M` of `f"{now:%H:%M}"`)."""
    spec = part.format_spec
    return "".join(str(v.value) for v in spec.values if isinstance(v, ast.Constant)) if isinstance(
        spec, ast.JoinedStr) else ""


def _formatted(call: ast.Call, names: dict[str, str], tainted: set[str]) -> str | None:
    """The format a clock is shown in by `now.strftime(fmt)`, `time.strftime(fmt)` or `format(now, fmt)`, or None."""
    func, args = call.func, call.args
    if isinstance(func, ast.Attribute) and func.attr == "strftime" and args and \
            (qualified(func, names) == "time.strftime" or _draws(func.value, names, tainted)):
        return constant_text(args[0])
    if _leaf(func) == "format" and isinstance(func, ast.Name) and len(args) == 2 and _draws(args[0], names, tainted):
        return constant_text(args[1])
    return None


def _clock_text(expr: ast.expr, names: dict[str, str], tainted: set[str]) -> int | None:
    """How many leading characters of a clock's text show no more than the date (5 digits of the epoch's seconds,
    `YYYY-MM-DD` of a date-time), where `expr` is the text of a clock read (`str(time.time())`, `now.isoformat()`,
    `f"{now}"`, `'%s' % t`); None when it is none."""
    if isinstance(expr, ast.JoinedStr):
        for part in expr.values:
            if isinstance(part, ast.FormattedValue) and _draws(part.value, names, tainted):
                spec = _spec(part)
                if "%" not in spec or _DAY_FINER.search(spec):
                    return _date_length(part.value, names)
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) and constant_text(expr.left) is not None:
        return 10 if _draws(expr.right, names, tainted) else None  # '%s' % time.time()
    if not isinstance(expr, ast.Call):
        return None
    func, leaf = expr.func, _leaf(expr.func)
    if leaf in _TEXT_KEEPERS and isinstance(func, ast.Attribute):
        return _clock_text(func.value, names, tainted)
    if isinstance(func, ast.Name) and leaf in _RADIX and func.id not in names and expr.args:
        return 2 if _draws(expr.args[0], names, tainted) else None  # `hex(time.time_ns())`: past `0x`
    shown = _formatted(expr, names, tainted)
    if shown is not None and "%" not in shown and isinstance(func, ast.Name):  # `format(t, 'x')`: a number's spec
        return 2 if _RADIX_SPEC.search(shown) else _date_length(expr.args[0], names)
    if shown is not None:
        return 10 if _DAY_FINER.search(shown) else None
    if leaf not in _TEXT_MAKERS and not (leaf == "format" and isinstance(func, ast.Attribute)):
        return None
    if isinstance(func, ast.Attribute) and leaf != "dumps" and not (leaf == "format" and constant_text(func.value)):
        return _date_length(func.value, names) if _draws(func.value, names, tainted) else None
    for arg in expr.args[:1] if leaf != "format" or isinstance(func, ast.Name) else expr.args:
        if _draws(arg, names, tainted):
            return _date_length(arg, names)
    return None


def _date_length(clock: ast.expr, names: dict[str, str]) -> int | None:
    """5 for a text of the epoch's seconds (`time.time()`: its sixth digit moves every 10⁵ s, about a day), 10 for
    a date-time's (`YYYY-MM-DD`, also for a name bound to a clock, whichever it is)."""
    called = qualified(clock.func, names) if isinstance(clock, ast.Call) else None
    if called == "datetime.date.today" or (isinstance(clock, ast.Call) and _leaf(clock.func) == "date" and
                                           isinstance(clock.func, ast.Attribute)):
        return None  # `now.date()`, `date.today()`: a date's text shows nothing finer
    epoch = (called or "").partition(".")[0] == "time" or (isinstance(clock, ast.Call) and
                                                            _leaf(clock.func) == "timestamp")
    return 5 if epoch else 10


def _cut_past_the_date(node: ast.Subscript, names: dict[str, str], tainted: set[str]) -> bool:
    """Whether a subscript takes a clock's text past its date (`[-1]`, `[11:]`, `.split('.')[1]`) or a
    `struct_time`'s time of day (`localtime()[3]`)."""
    holder, cut = node.value, node.slice
    bounds = [cut.lower, cut.upper] if isinstance(cut, ast.Slice) else [cut]
    values = [_number(b) for b in bounds]
    first = values[0]  # where the cut starts
    # a bound computed at run time (`[-n:]`, `[-int('３'):]`) may start anywhere: past the date too
    computed = any(b is not None and v is None for b, v in zip(bounds, values, strict=True))
    if _shown_as(holder, names, tainted, ("time.localtime", "time.gmtime"), ("timetuple", "utctimetuple")):
        return computed or (first is not None and 3 <= (first + 9 if first < 0 else first) <= 5)
    if _shown_as(holder, names, tainted, ("time.ctime", "time.asctime"), ("ctime",)):
        return first is not None and 11 <= (first + 24 if first < 0 else first) < 19  # `Fri Dec  4 21:27:20 2026`
    if isinstance(holder, ast.Call) and _leaf(holder.func) in ("split", "rsplit", "partition", "rpartition") and \
            isinstance(holder.func, ast.Attribute):
        if _shown_as(holder.func.value, names, tainted, ("time.ctime", "time.asctime"), ("ctime",)):
            return first in (3, -2)  # the time of day among `ctime().split()`
        if _clock_text(holder.func.value, names, tainted) is None:
            return False
        separator = constant_text(holder.args[0]) if holder.args else None
        return separator not in ("-", "/") and first != 0
    length = _clock_text(holder, names, tainted)
    if length is None:
        return False
    return computed or any(v is not None and v < 0 for v in values) or (first is not None and first >= length)


def _shown_as(expr: ast.expr, names: dict[str, str], tainted: set[str], functions: tuple[str, ...],
             methods: tuple[str, ...]) -> bool:
    """Whether `expr` is a clock read by one of `functions` (`time.localtime()`) or a clock's `methods`
    (`now.timetuple()`)."""
    if not isinstance(expr, ast.Call):
        return False
    if qualified(expr.func, names) in functions:
        return True
    return isinstance(expr.func, ast.Attribute) and expr.func.attr in methods and \
        qualified(expr.func, names) is None and _draws(expr.func.value, names, tainted)


def _number(node: ast.expr | None) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else None


def _draws(expr: ast.expr, names: dict[str, str], tainted: set[str]) -> bool:
    """The expression reads a clock, randomness the probes cannot reach, an address or a hash, or a name bound to
    one of them."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id in tainted:
            return True
        if not isinstance(node, ast.Call):
            continue
        called = called_name(node, names) or ""
        module, _, leaf = called.rpartition(".")
        clocks = _CLOCKS.get(module, ()) if module != "?" else frozenset().union(*_CLOCKS.values())
        if _unreached(called) or leaf in clocks or is_address_or_hash(node, names):
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr in _NOW:
            return True
    return False


def _tainted(tree: ast.Module, names: dict[str, str]) -> set[str]:
    """The names bound to a clock read or a draw (`t = time.time()`, `(t := time.time_ns())`), to a fixpoint."""
    tainted: set[str] = set()
    bindings: list[tuple[list[ast.expr], ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            bindings.append((node.targets, node.value))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            bindings.append(([node.target], node.value))
    changed = True
    while changed:
        changed = False
        for targets, value in bindings:
            if not _draws(value, names, tainted):
                continue
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and name.id not in tainted:
                        tainted.add(name.id)
                        changed = True
    return tainted
