"""Randomness a Python check draws that the sandbox gate's probes neither pin nor seed: a static reading behind
`nondeterministic_check`, found unrun.

The probes seed and pin the `random` module and every generator seeded from the system, and move the wall clocks
(`coworkenv.checks.run_setup`); a generator seeded with a value of the check's own is a fixed sequence they leave
alone. What they cannot reach: the OS's randomness (`os.urandom`, `uuid.uuid4`, `secrets`' tokens), the clocks that
count from an arbitrary start (`time.perf_counter`, `monotonic`, `process_time`), the process (`os.getpid`), an
object's address (`id`) and the hash of a string or an object (randomised per process) when the value is computed
with, a clock's sub-second digits (`now.microsecond`, `time.time_ns() % 1000`: the probes move the clocks by whole
days), and a generator or the module seeded from any of these or from a clock (`random.Random(time.time_ns())`): such
a seed looks like the check's own yet changes every run. A check that judges an agent's work has no use for either,
and a check that fails one agent in a thousand by them passes every probe run, so the reading rejects it unrun. Names
bound to such a draw or a clock read are followed (`t = time.time(); random.Random(t)`); run-time lookups
(`__import__('os')`) are not.
"""

from __future__ import annotations

import ast

# What draws on randomness no probe controls, by module.
UNREACHED = {"os": frozenset({"urandom", "getrandom", "getpid", "getppid"}),
             "uuid": frozenset({"uuid1", "uuid4", "getnode"}),
             "secrets": frozenset({"token_bytes", "token_hex", "token_urlsafe"}),
             "time": frozenset({"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
                                "process_time_ns", "thread_time", "thread_time_ns"}),
             "threading": frozenset({"get_ident", "get_native_id"})}
# The wall clocks the probes move: a fine reading of the time, but no seed.
_CLOCKS = {"time": frozenset({"time", "time_ns", "clock_gettime", "clock_gettime_ns", "localtime", "gmtime", "ctime"})}
_NOW = frozenset({"now", "utcnow", "today"})  # `datetime.now()`, `date.today()`, however the class was imported
_SEEDERS = frozenset({"Random", "SystemRandom", "seed"})  # `random.Random(x)`, `random.seed(x)`, `rng.seed(x)`
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def unpinned_randomness(code: str) -> str | None:
    """What the check draws on that the probes neither pin nor seed (e.g. "`os.urandom(...)`"), or None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    names = _imported(tree)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    tainted = _tainted(tree, names)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _qualified(node.func, names)
        if called is not None and called.split(".")[-1] in UNREACHED.get(called.split(".")[0], ()):
            return f"`{called}()`, randomness of the OS, an arbitrary clock or the process"
        if _is_address_or_hash(node) and _computed_with(node, parents):
            return f"`{ast.unparse(node)}`, an address or a hash that changes from run to run, computed with"
        leaf = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if leaf in _SEEDERS and any(_draws(arg, names, tainted) for arg in (*node.args, *(k.value for k in
                                                                                          node.keywords))):
            return f"`{ast.unparse(node)}`, a generator seeded from a clock or from randomness of its own"
    # after the draws themselves, so that `uuid.uuid4().int % 9` is named by its draw
    for node in ast.walk(tree):
        if _sub_second(node, names, tainted):
            return f"`{ast.unparse(node)}`, the sub-second digits of a clock, which no probe moves"
    return None


def _imported(tree: ast.Module) -> dict[str, str]:
    """Local name -> the module or module.function it is bound to (`import os as o`, `from uuid import uuid4`)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _qualified(func: ast.expr, names: dict[str, str]) -> str | None:
    """`os.urandom` for `os.urandom`, `o.urandom` (`import os as o`) or `urandom` (`from os import urandom`)."""
    if isinstance(func, ast.Name):
        return names.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names:
        return f"{names[func.value.id]}.{func.attr}"
    return None


def _is_address_or_hash(call: ast.Call) -> bool:
    if not isinstance(call.func, ast.Name) or call.func.id not in ("id", "hash") or len(call.args) != 1:
        return False
    # the hash of a number (or a tuple of numbers) is the same in every run; a string's or an object's is not
    return call.func.id == "id" or not all(isinstance(n, (ast.Tuple, ast.UnaryOp, ast.unaryop, ast.Load)) or
                                           (isinstance(n, ast.Constant) and not isinstance(n.value, (str, bytes)))
                                           for n in ast.walk(call.args[0]))


def _computed_with(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """The value is an operand of arithmetic or of an ordering (`id(x) % 2`, `hash(s) < n`), not an identity."""
    parent = parents.get(node)
    return isinstance(parent, (ast.BinOp, ast.UnaryOp)) or (
        isinstance(parent, ast.Compare) and any(isinstance(op, _ORDERING) for op in parent.ops))


def _sub_second(node: ast.AST, names: dict[str, str], tainted: set[str]) -> bool:
    """A clock's microseconds (`now.microsecond`) or its value taken modulo (`time.time_ns() % 1000`): the probes
    move the clocks by whole days, which leave these digits as random as they were."""
    if isinstance(node, ast.Attribute) and node.attr == "microsecond":
        return _draws(node.value, names, tainted)
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.BitAnd)) and \
        _draws(node.left, names, tainted)


def _draws(expr: ast.expr, names: dict[str, str], tainted: set[str]) -> bool:
    """The expression reads a clock, randomness the probes cannot reach, an address or a hash, or a name bound to
    one of them."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id in tainted:
            return True
        if not isinstance(node, ast.Call):
            continue
        called = _qualified(node.func, names) or ""
        module, _, leaf = called.partition(".")
        if leaf in UNREACHED.get(module, ()) or leaf in _CLOCKS.get(module, ()) or _is_address_or_hash(node):
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
