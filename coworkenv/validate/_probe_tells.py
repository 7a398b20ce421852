"""What a Python check inspects of what the sandbox gate's probes patch: the static reading behind `probe_aware`.

The probes patch `random`, `time`, `datetime` and sqlite's `connect` and `Connection` (`coworkenv.checks.run_setup`,
which the verifier's own run starts with too, its stand-ins answering as the originals there); what the stand-ins are
cannot be hidden (a Python function is no builtin, the moved `datetime` a subclass), so a check that looks at them rather than using them reads what no
run promises, and is rejected unrun: a guard kept beside the shared setup. A check that names a file's times, a clock
the kernel stamps (the setup moves them as `os` reports them, not as `posix` does), is rejected too (`file_times`). The reading follows what the patched objects, and the values
the moved class makes, flow into: names bound to them (assignment, unpacking, a loop's or a comprehension's variable,
`with ... as`, a default argument, a class attribute, what a helper returns), containers holding them, subscripts,
attributes and calls of them, and the run-time lookups of a patched module (`sys.modules['time']`,
`__import__('time')`, `importlib.import_module('datetime')`, `globals()`, `vars()`, `locals()`; `_datetime`, the C
module whose class the probes move with `datetime.datetime`). A call of a patched function returns a plain value
(`type(time.time())` is a float's type), and so does the difference of two date-times (a `timedelta`).
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path

# What the probes patch, by module, and the modules they reach through another name.
PATCHED = {"time": frozenset({"time", "time_ns", "localtime", "gmtime", "ctime", "strftime", "asctime",
                              "clock_gettime", "clock_gettime_ns"}),
           "datetime": frozenset({"datetime"}),
           "random": frozenset({"random", "uniform", "randint", "randrange", "choice"}),
           # sqlite's date functions read the real clock in C: every connection gets stand-ins, through a subclass of
           # the C module's `Connection` that `connect` makes too (its base, `__mro__`, would be the unmoved class)
           "sqlite3": frozenset({"connect", "Connection"})}
# What makes values of a stand-in class: a call of it is no plain value (`type(datetime.now()).__mro__` tells).
_MAKERS = {"datetime": frozenset({"datetime"}), "sqlite3": frozenset({"connect", "Connection"})}
_ALIASES = {"_datetime": "datetime", "_sqlite3": "sqlite3", "sqlite3.dbapi2": "sqlite3"}
_SUBMODULES = {"sqlite3": "dbapi2"}  # `sqlite3.dbapi2.Connection` is the patched `sqlite3.Connection`
# What looks at an object rather than using it.
_INSPECTORS = frozenset({"type", "id", "vars", "dir", "hasattr", "getattr", "callable", "isinstance", "issubclass"})
_SHOWN_AS_TEXT = frozenset({"repr", "str", "format", "ascii"})
# Modules whose functions look at an object's make (`sys.getsizeof`, `gc.is_tracked`: the moved class's instances are
# bigger and tracked by the collector), as `inspect` does.
_INSPECTING_MODULES = frozenset({"inspect", "sys", "gc", "weakref"})
# Built-ins that hand out a namespace holding the check's modules (`globals()['time']`).
_NAMESPACES = frozenset({"globals", "locals", "vars"})


class _Reading:
    """The names of one check's code that are, hold or were made by what the probes patch."""

    def __init__(self, tree: ast.Module) -> None:
        self.modules: dict[str, str] = {}  # name -> the patched module it is bound to
        self.objects: set[str] = set()  # names bound to a patched object (`from time import time`)
        self.classes: set[str] = set()  # names bound to the moved `datetime` class, sqlite's `connect` or `Connection`
        self.inspecting: set[str] = set()  # names of `inspect`, `sys`, `gc`, `weakref` and their functions
        self.loaders: set[str] = set()  # `importlib`, `import_module`
        self.reached: set[str] = set()  # names bound to anything `reaches`
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    module = _ALIASES.get(alias.name, alias.name)
                    if module in PATCHED:  # `import sqlite3.dbapi2` binds `sqlite3`
                        self.modules[alias.asname or alias.name.partition(".")[0]] = module
                    elif alias.name in _INSPECTING_MODULES or alias.name == "importlib":
                        (self.loaders if alias.name == "importlib" else self.inspecting).add(
                            alias.asname or alias.name)
            elif isinstance(node, ast.ImportFrom):
                module = _ALIASES.get(node.module or "", node.module or "")
                for alias in node.names:
                    name = alias.asname or alias.name
                    if alias.name in PATCHED.get(module, ()):
                        self.objects.add(name)
                        if alias.name in _MAKERS.get(module, ()):
                            self.classes.add(name)
                    elif module in _INSPECTING_MODULES:
                        self.inspecting.add(name)
                    elif module == "importlib" and alias.name == "import_module":
                        self.loaders.add(name)
        changed = True
        while changed:  # to a fixed point: a name bound to a name bound to a patched object, and so on
            changed = False
            for target, value in _bindings(tree):
                if self.reaches(value):
                    for name in _names(target):
                        if name not in self.reached:
                            self.reached.add(name)
                            changed = True

    def patched(self, node: ast.AST) -> bool:
        """Whether an expression is a patched object itself (`time.time`, `datetime.now`, `getattr(time, 'time')`,
        `sys.modules['time'].time`) or a patched module."""
        if isinstance(node, ast.Name):
            return node.id in self.objects or node.id in self.modules
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in self.modules:
                module = self.modules[node.value.id]
                return node.attr in PATCHED[module] or node.attr == _SUBMODULES.get(module)
            return self.patched(node.value) or self.looked_up(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and node.args:
            return self.patched(node.args[0]) or self.looked_up(node.args[0])
        return self.looked_up(node)

    def looked_up(self, node: ast.AST) -> bool:
        """Whether an expression looks a patched module up at run time: `sys.modules[...]`, `__import__(...)`,
        `importlib.import_module(...)` of a patched module (or of a name not known here), `globals()[...]`."""
        if isinstance(node, ast.Subscript):
            holder = node.value
            if isinstance(holder, ast.Attribute) and holder.attr == "modules" and \
                    isinstance(holder.value, ast.Name) and holder.value.id in self.inspecting:
                return _names_module(node.slice)
            return isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id in _NAMESPACES
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        loader = (isinstance(func, ast.Name) and (func.id == "__import__" or func.id in self.loaders)) or (
            isinstance(func, ast.Attribute) and func.attr == "import_module" and isinstance(func.value, ast.Name)
            and func.value.id in self.loaders)
        if loader:
            return not node.args or _names_module(node.args[0])
        if isinstance(func, ast.Attribute) and func.attr == "get" and isinstance(func.value, ast.Attribute) and \
                func.value.attr == "modules":  # sys.modules.get('time')
            return not node.args or _names_module(node.args[0])
        return isinstance(func, ast.Name) and func.id in _NAMESPACES and not node.args

    def of_class(self, node: ast.AST) -> bool:
        """Whether an expression is the moved `datetime` class or one of its attributes (`datetime.now`), or sqlite's
        `connect` or `Connection`, which make connections of a stand-in class."""
        while isinstance(node, ast.Attribute):
            inner = node.value  # a module, or `sqlite3.dbapi2` of `sqlite3.dbapi2.connect`
            if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id in self.modules \
                    and inner.attr == _SUBMODULES.get(self.modules[inner.value.id]):
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in self.modules:
                return node.attr in _MAKERS.get(self.modules[inner.id], ())
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.classes

    def plain_call(self, node: ast.Call) -> bool:
        """Whether a call returns a plain value: a call of a patched function of `time` or `random` (a number, a
        struct_time, a string), not of the moved class nor of anything else."""
        return self.patched(node.func) and not self.of_class(node.func) and not self.looked_up(node.func)

    def reaches(self, node: ast.AST) -> bool:
        """Whether an expression is, holds or was made by what the probes patch."""
        if isinstance(node, ast.Name):
            return node.id in self.reached or self.patched(node)
        if isinstance(node, ast.Attribute):
            # `time.monotonic` is the real one; a class attribute bound to a moved value (`Window.start`) is one
            return self.patched(node) or node.attr in self.reached or (
                not (isinstance(node.value, ast.Name) and node.value.id in self.modules) and self.reaches(node.value))
        if isinstance(node, ast.Call):
            if self.plain_call(node):
                return any(self.reaches(a) for a in node.args)  # `random.choice(BOUNDS)` is one of them
            return self.looked_up(node) or self.reaches(node.func) or \
                any(self.reaches(a) for a in [*node.args, *(k.value for k in node.keywords)])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and self.reaches(node.left) and \
                self.reaches(node.right):
            return False  # the difference of two date-times is a timedelta
        if isinstance(node, (ast.Constant, ast.Compare, ast.Lambda, ast.JoinedStr)) or (
                isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            return False
        if isinstance(node, ast.Subscript):
            return self.looked_up(node) or self.reaches(node.value)
        return any(self.reaches(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))

    def inspector(self, func: ast.expr) -> str | None:
        """The name of an inspecting function (`type`, `inspect.isbuiltin`, `sys.getsizeof`), or None."""
        if isinstance(func, ast.Name) and (func.id in _INSPECTORS or func.id in self.inspecting):
            return func.id
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.inspecting:
            return func.attr
        return None


def _names_module(node: ast.AST) -> bool:
    """Whether a module name given at run time is (or may be) a patched module's."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _ALIASES.get(node.value, node.value) in PATCHED
    return True


def _names(target: ast.AST) -> Iterator[str]:
    """The names a binding target binds (`x`, `a, b`, `*rest`)."""
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            yield node.id


def _bindings(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(target, value) of every binding: an assignment, a loop's or a comprehension's variable (bound to an element of
    the iterable: `reaches` holds for it where it holds for the iterable), `with ... as`, a default argument, a
    function's name to what it returns, a class's name to its attributes' values."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            yield from ((t, node.value) for t in node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            yield node.target, node.value
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            yield node.target, node.iter
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            yield from ((i.optional_vars, i.context_expr) for i in node.items if i.optional_vars is not None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            positional = [*node.args.posonlyargs, *node.args.args]
            for arg, default in zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults,
                                    strict=True):
                yield ast.Name(arg.arg), default
            for arg, kw_default in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True):
                if kw_default is not None:
                    yield ast.Name(arg.arg), kw_default
            if not isinstance(node, ast.Lambda):
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        yield ast.Name(node.name), ret.value
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                    yield ast.Name(node.name), statement.value


def introspection(code: str) -> str | None:
    """What the probes patch that the check inspects rather than uses, as the code writes it; None where it inspects
    nothing patched. Inspecting is: a dunder attribute of anything that `reaches` a patched object or a value the
    moved class made (`time.time.__code__`, `type(BOUNDS[0]).__mro__`, `time.__dict__`); `__subclasses__` of
    anything in a check that imports a patched module (it finds the moved class from its base); `type`, `id`,
    `vars`, `dir`, `hasattr`, `getattr`, `callable`, `isinstance`, `issubclass` or a function of `inspect`, `sys`,
    `gc` or `weakref` on such an expression, or `isinstance`/`issubclass` of a patched object (a value the moved class
    made is of its class, a subclass of the original's, as in a real run; the class tested against does not count);
    `repr`/`str` (or an f-string) of a patched
    function or class itself (a value the moved class made prints as the original's)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    reading = _Reading(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr.endswith("__") and (
                reading.reaches(node.value) or (node.attr == "__subclasses__" and (reading.modules or reading.objects))):
            return ast.unparse(node)
        if isinstance(node, ast.FormattedValue) and reading.patched(node.value):  # f"{time.time}", as str(time.time)
            return ast.unparse(node)
        if not isinstance(node, ast.Call):
            continue
        name = reading.inspector(node.func)
        # a class test of a value the moved class made passes as in a real run (the value is of that class, a
        # subclass of the original's): only a patched object tested tells
        if name in ("isinstance", "issubclass"):
            told = bool(node.args) and reading.patched(node.args[0])
        else:
            told = name is not None and any(reading.reaches(arg) for arg in node.args)
        if told:
            return ast.unparse(node)
        if isinstance(node.func, ast.Name) and node.func.id in _SHOWN_AS_TEXT and \
                any(reading.patched(arg) for arg in node.args):
            return ast.unparse(node)
    return None


# A file's times are the kernel's stamp of the real clock: no setup moves them, so a check that compares one with
# the (moved) clock tells a clock probe from the verifier's run, and one that reads the date off it escapes the probes.
# What gives a file's times: the `stat` family (an index of its result too: `os.stat(p)[8]`), a directory entry's
# `stat()`, `os.path.get*time`, and the `st_*time` fields by name.
_FILE_TIMES = re.compile(r"^st_(?:[amc]time|birthtime)(?:_ns)?$")
_FILE_TIME_CALLS = frozenset({"stat", "lstat", "fstat", "fstatat", "scandir", "getmtime", "getatime", "getctime"})
# The operating system's own module under `os`: its stat family is the kernel's, which the setup leaves to the import
# system (it reads file times for its caches), so a check has no file times to read through it either.
_OS_MODULES = frozenset({"posix", "nt"})


def file_times(code: str) -> str | None:
    """The first read of a file's times in the check (`os.stat(p).st_mtime`, `os.stat(p)[8]`, `Path(p).stat()`,
    `os.path.getmtime(p)`, `getattr(st, "st_atime")`, the `posix` module), None where it reads none. Nothing in a check's payload is a
    file: a sound check has no file's times to read."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and (_FILE_TIMES.match(node.attr) or node.attr in _FILE_TIME_CALLS):
            return ast.unparse(node)
        # a name only as imported (`from os import stat`): a variable of the check's own may be called `stat`
        if isinstance(node, ast.alias) and (node.name in _FILE_TIME_CALLS or node.name in _OS_MODULES):
            return node.name
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                _FILE_TIMES.match(node.value) or node.value in _FILE_TIME_CALLS - {"stat"} or
                node.value in _OS_MODULES):
            return repr(node.value)
    return None


# What leads from an object a check can reach to the run's setup, whose functions and classes are everywhere the probes
# patch (`time`, `random`'s generators, `_random`, `os`'s stat family, the import system's finders): their globals hold
# the probe's settings and the originals they stand in for (`_cw_offset`, the real clock), which no value a check is
# judged on needs. The setup's classes are found from `object` (`__subclasses__`), its finder on `sys.meta_path`, its
# functions' namespaces through `__globals__`, closures, defaults and frames. A check that names any of these, or the
# setup's own names (`_cw_`), or that names an attribute at run time (`getattr(object, '__sub' + 'classes__')`,
# `vars(type)[name]`, `eval` of a string made at run time), can read a probe's settings: no static reading follows it.
_REACHING = frozenset({"__globals__", "__closure__", "cell_contents", "__subclasses__", "__defaults__",
                       "__kwdefaults__", "f_globals", "f_locals", "f_back", "f_builtins", "tb_frame", "gi_frame",
                       "cr_frame", "ag_frame", "meta_path", "path_hooks", "path_importer_cache", "__builtins__"})
_SETUP_NAMES = re.compile(r"_cw_|_Cw[A-Z]")
_REACHING_TEXT = re.compile("|".join(sorted(_REACHING)) + "|" + _SETUP_NAMES.pattern)
# Calls that read an attribute by a name given as an argument (at the index given), and those that run source text.
_BY_NAME = {"getattr": 1, "hasattr": 1, "getattr_static": 1, "__getattribute__": 1, "__getattr__": 1,
            "attrgetter": 0, "methodcaller": 0}
_RUNS_TEXT = frozenset({"eval", "exec", "compile"})


def setup_reached(code: str) -> str | None:
    """The first place the check reaches for the run's setup (`_REACHING`, the setup's names, an attribute or a
    namespace entry named at run time, source text run that is not a literal), as the code writes it; None where it
    reaches for none."""
    sources = _graded_sources(code)
    for source in [code] if sources is None else sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        found = _reached(tree, _constant_names(tree), depth=0)
        if found is not None:
            return found if sources is None else f"the grader's {found}"
    return None


# An imported Claw-Eval task's check is the importer's grader runtime (which runs the task's grader, its peers and the
# framework they import from source text, `exec`) and then that text as a literal (`CONTEXT_JSON = '...'`): the
# runtime is the project's own code, the text it runs the benchmark's, which is what is read there.
_GRADER_RUNTIME = Path(__file__).resolve().parents[1] / "importers" / "claw_eval_grader_runtime.py"


@functools.cache
def _grader_runtime() -> str:
    try:
        return _GRADER_RUNTIME.read_text()
    except OSError:
        return ""


def _graded_sources(code: str) -> list[str] | None:
    """The sources an imported grader runtime runs (its grader, peers, framework and judge), where `code` is that
    runtime followed by nothing but its `CONTEXT_JSON` literal; None for any other code."""
    runtime = _grader_runtime()
    if not runtime or not code.startswith(runtime):
        return None
    try:
        rest = ast.parse(code[len(runtime):])
    except SyntaxError:
        return None
    if len(rest.body) != 1 or not isinstance(assign := rest.body[0], ast.Assign) or \
            [ast.unparse(t) for t in assign.targets] != ["CONTEXT_JSON"] or \
            not isinstance(assign.value, ast.Constant) or not isinstance(assign.value.value, str):
        return None
    try:
        context = json.loads(assign.value.value)
    except ValueError:
        return None
    if not isinstance(context, dict):
        return None
    sources = [context.get("grader"), context.get("judge")]
    for group in ("peers", "framework"):
        held = context.get(group)
        sources += list(held.values()) if isinstance(held, dict) else [held]
    return [s for s in sources if isinstance(s, str)]


def _literal_names(tree: ast.Module, known: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """name -> the values it is bound to, for names bound only to string literals (`for n in ('a', 'b')`, `n = 'a'`):
    an attribute read by such a name reads one of those."""
    bound: dict[str, list[str]] = {}
    unknown: set[str] = set()
    for target, value in _bindings(tree):
        values: list[ast.AST] = list(value.elts) if isinstance(value, (ast.Tuple, ast.List, ast.Set)) and \
            not isinstance(target, (ast.Tuple, ast.List)) else [value]
        if known and isinstance(value, ast.Name) and value.id in known:  # a loop over a name of literals
            values = [ast.Constant(text) for text in known[value.id]]
        texts = [v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        for name in _names(target):
            if isinstance(target, ast.Name) and len(texts) == len(values):
                bound.setdefault(name, []).extend(texts)
            else:
                unknown.add(name)
    for node in ast.walk(tree):  # a parameter is bound by the caller
        if isinstance(node, ast.arg):
            unknown.add(node.arg)
    return {name: values for name, values in bound.items() if name not in unknown}


def _constant_names(tree: ast.Module) -> dict[str, list[str]]:
    """`_literal_names`, with a name bound to a name of those (`for n in FIELDS`, `FIELDS = ('a', 'b')`)."""
    first = _literal_names(tree)
    return _literal_names(tree, first) if first else first


def _named_at_run_time(node: ast.expr, constants: dict[str, list[str]]) -> bool:
    """Whether an attribute's name is made at run time rather than written (a literal, or a name bound only to
    literals that reach nothing)."""
    if isinstance(node, ast.Constant):
        return False
    if isinstance(node, ast.Name) and node.id in constants:
        return any(_REACHING_TEXT.search(text) for text in constants[node.id])
    return True


def _reached(tree: ast.AST, constants: dict[str, list[str]], depth: int) -> str | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and (node.attr in _REACHING or _SETUP_NAMES.match(node.attr)):
            return ast.unparse(node)
        if isinstance(node, ast.Name) and (node.id in _REACHING or _SETUP_NAMES.match(node.id)):
            return node.id
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _REACHING_TEXT.search(node.value):
            return repr(node.value)
        if isinstance(node, ast.Subscript) and _is_namespace(node.value) and \
                _named_at_run_time(node.slice, constants):  # vars(type)[name], X.__dict__[name]
            return ast.unparse(node)
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if called in _BY_NAME:  # the name's place: `getattr(x, name)`, `object.__getattribute__(x, name)`,
            at = min(_BY_NAME[called], len(node.args) - 1)  # `x.__getattribute__(name)`, `attrgetter(name)`
            if at >= 0 and _named_at_run_time(node.args[at], constants):
                return ast.unparse(node)
        if called in _RUNS_TEXT and (isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and
                                                                     isinstance(func.value, ast.Name) and
                                                                     func.value.id == "builtins")) and node.args:
            text = node.args[0]
            if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
                return ast.unparse(node)
            try:
                inner = ast.parse(text.value)
            except SyntaxError:
                continue
            if depth < 4:
                found = _reached(inner, constants, depth + 1)
                if found is not None:
                    return ast.unparse(node)
        if isinstance(func, ast.Attribute) and func.attr == "get" and _is_namespace(func.value) and node.args and \
                _named_at_run_time(node.args[0], constants):
            return ast.unparse(node)
        if isinstance(func, ast.Attribute) and func.attr in ("items", "values") and _is_namespace(func.value):
            return ast.unparse(node)  # every attribute, found by a test of its name: `vars(type).items()`
    # a reader by name handed on rather than called (`functools.reduce(getattr, names, obj)`, `map(getattr, ...)`)
    called_readers = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _BY_NAME and id(node) not in called_readers:
            return node.id
    return None


def _is_namespace(node: ast.expr) -> bool:
    """`vars(x)`, `x.__dict__`: a namespace whose entries are attributes."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and
            bool(node.args)) or (isinstance(node, ast.Attribute) and node.attr == "__dict__")

