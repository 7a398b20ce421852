"""Values drawn afresh for every run of a Python check that are neither a clock nor a generator, read unrun: what the
static reading behind `nondeterministic_check` (`coworkenv.validate._entropy_tells`) names besides the OS's randomness.

- An object's address and a string's hash (the allocator's addresses move with the address-space layout, a string's
  hash is salted per process): `id(x)` or `hash(s)` used for anything but identity (`==`, `!=`, `is`, `in`, a key, a
  set member), so its digits, bytes or bits too (`hex(id(x))`, `id(x).to_bytes(...)`, `id(x).bit_count()`); the
  default text of an object, which shows its address (`repr(object())`, a lambda's, a generator's, an iterator's, a
  function's or an instance's of a class the check defines, `object.__repr__(x)`); a thread's id, its address.
- The order a set iterates in, which its strings' hashes decide, read past whatever carries it (`list(s)[0]`,
  `next(iter(s))`, `s.pop()`, `','.join(s)`, `list(dict.fromkeys(s))[0]`, `enumerate(s)`, `max(s, key=len)`):
  `coworkenv.validate._set_orders`.
- What the sandbox draws for each run: the scratch directory's random name (`sys.argv`, the module the sandbox
  boots, `__main__`, however reached, and `sys.path_importer_cache`, which name its file, the environment's
  temporary-directory variables or the whole environment, the same expanded in a text, `os.path.expandvars('$TMPDIR')`,
  the absolute form of a relative path); the calls that read it, a temporary name, the mapped user id or the process's
  counters are in `_entropy_tells.UNREACHED` (a file's owner, the mapped id too, is read by `stat`, which
  `_probe_tells.file_times` rejects whole).
- A clock that counts from an arbitrary start, asked by its id (`time.clock_gettime(time.CLOCK_MONOTONIC)`,
  `CLOCK_BOOTTIME`, the process's or thread's CPU time): the probes move only the wall clocks (`CLOCK_REALTIME`,
  `CLOCK_TAI`), and these read the machine's uptime (or the time namespace's, about a second), or its load.

A check that judges an agent's work from the state has no use for any of them, and one that fails one agent in a
thousand by them passes every probe run (the probes move clocks and pin generators, not these)."""

from __future__ import annotations

import ast
import re

from coworkenv.validate._module_lookups import called_name, constant_text, qualified
from coworkenv.validate._set_orders import set_order_read

_IDENTITY_OPS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)
# Methods of a container that take an address as a key or a member, not as a number: `seen.add(id(x))`.
_KEEPING = frozenset({"add", "append", "get", "setdefault", "discard", "remove", "pop", "index", "count",
                      "__contains__", "__getitem__", "__setitem__"})
# Calls whose result's default text shows an address: an iterator, a generator, a bare object.
_ADDRESSED_CALLS = frozenset({"object", "iter", "map", "filter", "zip", "enumerate", "reversed"})
_TEXT_OF = frozenset({"str", "repr", "ascii", "format"})
_TEMP_VARS = frozenset({"TMPDIR", "TEMP", "TMP"})
_ENVIRON = frozenset({"os.environ", "os.environb"})
_EXPANDS = frozenset({"os.path.expandvars", "posixpath.expandvars"})
_CLOCK_READS = frozenset({"time.clock_gettime", "time.clock_gettime_ns"})
_WALL_CLOCKS = frozenset({"CLOCK_REALTIME", "CLOCK_TAI"})
_WALL_CLOCK_IDS = frozenset({0, 11})


def is_address_or_hash(call: ast.Call, names: dict[str, str]) -> bool:
    """`id(x)`, or `hash(x)` of anything but a number (a string's or an object's hash changes from run to run)."""
    func = call.func
    leaf = func.id if isinstance(func, ast.Name) and func.id not in names else \
        (qualified(func, names) or "").removeprefix("builtins.")
    if leaf not in ("id", "hash") or len(call.args) != 1:
        return False
    return leaf == "id" or not all(isinstance(n, (ast.Tuple, ast.UnaryOp, ast.unaryop, ast.Load)) or
                                   (isinstance(n, ast.Constant) and not isinstance(n.value, (str, bytes)))
                                   for n in ast.walk(call.args[0]))


def drawn_per_run(tree: ast.Module, names: dict[str, str]) -> str | None:
    """What the check reads that is drawn afresh for every run (see the module's text), or None."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    addresses = _bound(tree, lambda value: isinstance(value, ast.Call) and is_address_or_hash(value, names))
    addressed = _addressed_names(tree, names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and is_address_or_hash(node, names) and not _identity_use(node, parents):
            return f"`{ast.unparse(node)}`, an address or a salted hash used for more than identity"
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in addresses and \
                not _identity_use(node, parents):
            return f"`{node.id}`, an address or a salted hash used for more than identity"
        if any(_shows_address(shown, names, addressed) for shown in _text_of(node, names)):
            return f"`{ast.unparse(node)}`, the default text of an object, which shows its address"
        if isinstance(node, ast.Attribute) and node.attr in ("ident", "native_id") and any(
                (called_name(n, names) or "").startswith(("threading.", "_thread.")) for n in ast.walk(node.value)
                if isinstance(n, ast.Call)):
            return f"`{ast.unparse(node)}`, a thread's id (its address)"
        scratch = _scratch_read(node, names, parents)
        if scratch is not None:
            return f"`{ast.unparse(node)}`, {scratch}"
        if isinstance(node, ast.Call) and _arbitrary_clock(node, names):
            return f"`{ast.unparse(node)}`, a clock that counts from an arbitrary start (the boot, the process's " \
                "CPU time), which no probe moves"
    return set_order_read(tree, names)


def _arbitrary_clock(call: ast.Call, names: dict[str, str]) -> bool:
    """`time.clock_gettime(time.CLOCK_MONOTONIC)`: a clock other than the wall clocks the probes move, asked by id."""
    if called_name(call, names) not in _CLOCK_READS or not call.args:
        return False
    clock = call.args[0]
    if isinstance(clock, ast.Constant):
        return clock.value not in _WALL_CLOCK_IDS
    named = qualified(clock, names)
    return named is None or named.rpartition(".")[2] not in _WALL_CLOCKS


def _bound(tree: ast.Module, kind: object) -> set[str]:
    """The names an assignment binds to a value `kind` accepts (`k = id(x)`, `s = {...}`)."""
    return {t.id for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and
            n.value is not None and kind(n.value)  # type: ignore[operator]
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}


def _identity_use(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether an address is used as what it is, an identity: compared for equality or membership, a key or a member
    of a container, or bound to a name (whose uses are judged in turn)."""
    parent = parents.get(node)
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set, ast.Starred)):  # `(id(a), id(b)) in pairs`
        return _identity_use(parent, parents)
    if isinstance(parent, ast.Compare):
        return all(isinstance(op, _IDENTITY_OPS) for op in parent.ops)
    if isinstance(parent, ast.Subscript):
        return parent.slice is node
    if isinstance(parent, ast.Dict):
        return any(key is node for key in parent.keys)
    if isinstance(parent, (ast.DictComp, ast.SetComp)):
        return node is (parent.key if isinstance(parent, ast.DictComp) else parent.elt)
    if isinstance(parent, ast.Call):
        return isinstance(parent.func, ast.Attribute) and parent.func.attr in _KEEPING and node in parent.args
    return isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr))


def _addressed_names(tree: ast.Module, names: dict[str, str]) -> set[str]:
    """Names whose value's default text shows an address: the functions the check defines, instances of its classes
    without a text of their own, and names bound to an object, a lambda, a generator or an iterator."""
    functions = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    plain = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and not any(
        isinstance(f, ast.FunctionDef) and f.name in ("__repr__", "__str__", "__format__") for f in n.body)}
    addressed = set(functions)
    addressed |= _bound(tree, lambda value: _shows_address(value, names, functions, plain))
    return addressed | {f"class:{name}" for name in plain}


def _shows_address(expr: ast.expr, names: dict[str, str], addressed: set[str],
                   plain: set[str] | None = None) -> bool:
    if plain is None:
        plain = {name.removeprefix("class:") for name in addressed if name.startswith("class:")}
    if isinstance(expr, (ast.Lambda, ast.GeneratorExp)):
        return True
    if isinstance(expr, ast.Name):
        return expr.id in addressed
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id not in names:
        return expr.func.id in _ADDRESSED_CALLS or expr.func.id in plain
    return False


def _text_of(node: ast.AST, names: dict[str, str]) -> list[ast.expr]:
    """The objects whose default text an expression makes (`repr(o)`, `str(o)`, `f"{o}"`, `'{}'.format(o)`,
    `'%s' % o`, `o.__repr__()`); `object.__repr__(o)` makes `o`'s default text whatever it is, so it is returned as
    a bare `object()`."""
    if isinstance(node, ast.FormattedValue):
        return [node.value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and constant_text(node.left) is not None:
        return list(node.right.elts) if isinstance(node.right, ast.Tuple) else [node.right]
    if not isinstance(node, ast.Call):
        return []
    func = node.func
    if isinstance(func, ast.Name) and func.id in _TEXT_OF and func.id not in names and node.args:
        return [node.args[0]]
    if isinstance(func, ast.Attribute) and func.attr in ("__repr__", "__str__", "__format__"):
        if isinstance(func.value, ast.Name) and func.value.id == "object" and node.args:
            return [ast.Call(ast.Name("object", ast.Load()), [], [])]
        return [func.value]
    if isinstance(func, ast.Attribute) and func.attr == "format" and constant_text(func.value) is not None:
        return [*node.args, *(k.value for k in node.keywords)]
    return []


def _scratch_read(node: ast.AST, names: dict[str, str], parents: dict[ast.AST, ast.AST]) -> str | None:
    """A read of the scratch directory's random name that is no call of `UNREACHED`: `sys.argv`, the environment's
    temporary-directory variables (or the whole environment), the absolute form of a relative path."""
    if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
        found = qualified(node, names)
        if found in ("sys.argv", "sys.orig_argv", "sys.path_importer_cache"):
            return "the sandbox's boot path, in its scratch directory's random name"
    if isinstance(node, (ast.Attribute, ast.Name, ast.Subscript, ast.Call)) and \
            isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
        found = qualified(node, names)
        if found is not None and found.split(".")[0] == "__main__":  # `sys.modules['__main__']`, `import __main__`
            return "the sandbox's boot module, whose file is in its scratch directory's random name"
        if found in _ENVIRON and not _named_variable(node, parents):
            return "the environment, which names the run's scratch directory"
    if not isinstance(node, ast.Call):
        return None
    called = called_name(node, names) or ""
    if called in ("os.getenv", "os.getenvb") or (called.rpartition(".")[0] in _ENVIRON and
                                                 called.endswith((".get", ".__getitem__"))):
        key = constant_text(node.args[0]) if node.args else None
        if key is None or key in _TEMP_VARS:
            return "a variable of the environment that names the run's scratch directory"
    if called in _EXPANDS:  # `os.path.expandvars('$TMPDIR/x')`: the variable's value in the text
        text = constant_text(node.args[0]) if node.args else None
        if text is None or any(re.search(rf"\$(?:{var}\b|\{{{var}\}})", text) for var in _TEMP_VARS):
            return "the environment's variable that names the run's scratch directory, expanded in a text"
    # two absolute forms compared for equality share the scratch prefix: a path normalised, not read
    compared = isinstance(parents.get(node), ast.Compare) and all(
        isinstance(op, (ast.Eq, ast.NotEq)) for op in parents[node].ops)  # type: ignore[attr-defined]
    if called in ("os.path.abspath", "os.path.realpath", "posixpath.abspath", "posixpath.realpath") and not compared:
        return _relative(node.args[0] if node.args else None)
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("resolve", "absolute") and not compared:
        path = node.func.value
        if isinstance(path, ast.Call) and (called_name(path, names) or "").startswith("pathlib."):
            return _relative(path.args[0] if path.args else None)
    return None


def _named_variable(environ: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether `os.environ` is read for one variable named by a constant other than the temporary directory's
    (`os.environ['TZ']`, `os.environ.get('TZ')`, `'TZ' in os.environ`); `.get` is judged as a call."""
    parent = parents.get(environ)
    if isinstance(parent, ast.Subscript) and parent.value is environ:
        key = constant_text(parent.slice)
        return key is not None and key not in _TEMP_VARS
    if isinstance(parent, ast.Attribute) and parent.attr in ("get", "__getitem__"):
        return True
    return isinstance(parent, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)


def _relative(path: ast.expr | None) -> str | None:
    text = constant_text(path) if path is not None else None
    if text is not None and text.startswith("/"):
        return None
    return "the absolute form of a relative path, in the run's scratch directory's random name"
