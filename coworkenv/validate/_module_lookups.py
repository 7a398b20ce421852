"""What module or member an expression of a Python check names, read unrun: bound by an import or an assignment, or
looked up at run time (`__import__('os')`, `importlib.import_module`, `sys.modules[...]`, `getattr`, `vars`, a
module's `__dict__`, `__builtins__[...]`). The static readings of the sandbox gate name what a check calls by it."""

from __future__ import annotations

import ast
import functools
import importlib.util
import sys
from pathlib import Path


def imported_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> the module or module.function it is bound to: by an import (`import os as o`, `from uuid import
    uuid4`) or by an assignment of a run-time lookup (`o = __import__('os')`, `u = getattr(uuid, 'uuid4')`)."""
    names: dict[str, str] = {"__builtins__": "builtins"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if alias.name == "*":  # `from os import *`: a name bound nowhere else is the module's (`?`: one of)
                    names["*"] = node.module if names.get("*", node.module) == node.module else "?"
                else:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    bindings = [(t.id, n.value) for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.NamedExpr))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)]
    changed = True
    while changed:  # to a fixpoint: `o = __import__('os'); u = o.urandom`
        changed = False
        for name, value in bindings:
            found = qualified(value, names)
            if found is not None and names.get(name) != found:
                names[name], changed = found, True
    return names


def qualified(expr: ast.expr, names: dict[str, str]) -> str | None:
    """The dotted name of the module or function an expression is: `os.urandom` for `os.urandom`, `o.urandom`
    (`import os as o`), `urandom` (`from os import urandom`), and for the same reached at run time:
    `__import__('os').urandom`, `importlib.import_module('os')`, `sys.modules['os']`, `getattr(os, 'urandom')`,
    `vars(os)['urandom']`, `os.__dict__.get('urandom')`, `os.__getattribute__('urandom')`, `globals()['os']`,
    `operator.attrgetter('urandom')(os)`, `__builtins__['hash']`. A name computed at run time is `?`
    (`getattr(uuid, 'uuid' + '4')` is `uuid.?`)."""
    if isinstance(expr, ast.Name):
        return names.get(expr.id) or (f"{names['*']}.{expr.id}" if "*" in names else None)
    if isinstance(expr, ast.Attribute):
        if expr.attr == "__dict__":
            return qualified(expr.value, names)
        holder = qualified(expr.value, names)
        return None if holder is None else f"{holder}.{expr.attr}"
    if isinstance(expr, ast.Subscript):  # sys.modules['os'], vars(os)['urandom'], os.__dict__['urandom']
        return _member(expr.value, expr.slice, names)
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    called = qualified(func, names) or (func.id if isinstance(func, ast.Name) else None)
    if called in _NAMESPACES and not expr.args:
        return "<namespace>"  # globals()['os'] is the check's own `os`
    if not expr.args:
        return None
    if called in ("__import__", "builtins.__import__", "importlib.import_module", "importlib.__import__"):
        module = constant_text(expr.args[0])
        return "?" if module is None else (module.split(".")[0] if called.endswith("__import__") else module)
    if called in ("getattr", "builtins.getattr") and len(expr.args) >= 2:
        holder = qualified(expr.args[0], names)
        return None if holder is None else f"{holder}.{constant_text(expr.args[1]) or '?'}"
    if called in ("vars", "builtins.vars"):
        return qualified(expr.args[0], names)
    if isinstance(func, ast.Attribute) and func.attr in ("get", "__getattribute__", "__getattr__"):
        return _member(func.value, expr.args[0], names)  # sys.modules.get('os'), os.__getattribute__('urandom')
    if isinstance(func, ast.Call) and (qualified(func.func, names) or "").endswith("attrgetter") and func.args:
        return _member(expr.args[0], func.args[0], names)  # operator.attrgetter('urandom')(os)
    return None


def called_name(call: ast.Call, names: dict[str, str]) -> str | None:
    """The dotted name of what a call calls (see `qualified`), also through `operator.methodcaller('urandom', 2)(os)`."""
    func = call.func
    if isinstance(func, ast.Call) and (qualified(func.func, names) or "").endswith("methodcaller") and \
            func.args and call.args:
        return _member(call.args[0], func.args[0], names)
    return qualified(func, names)


_NAMESPACES = frozenset({"globals", "locals", "vars", "builtins.globals", "builtins.locals", "builtins.vars"})


def _member(holder: ast.expr, key: ast.expr, names: dict[str, str]) -> str | None:
    """What `holder[key]` is where the holder is `sys.modules` (a module) or a module's namespace (a member)."""
    found = qualified(holder, names)
    if found is None:
        return None
    if found == "<namespace>":
        return qualified(ast.Name(constant_text(key) or "?"), names)
    return (constant_text(key) or "?") if found == "sys.modules" else f"{found}.{constant_text(key) or '?'}"


def constant_text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def canonical(dotted: str) -> str:
    """The name a standard library module's own import binds: `random._urandom` is `os.urandom` (random.py: `from os
    import urandom as _urandom`), `uuid.os.getpid` and `tempfile._os.getpid` are `os.getpid`; other names as they are.
    Read from the modules' source, never imported."""
    parts = dotted.split(".")
    for _ in range(8):  # a re-export of a re-export, bounded
        if len(parts) < 2:
            break
        if parts[0] in _C_FACADES:  # `posix.urandom` is `os.urandom`: the C module `os` re-exports whole
            parts = [_C_FACADES[parts[0]], *parts[1:]]
            continue
        # the module's own import, or a submodule's (`email.utils.os.getpid`, `concurrent.futures.process.os`)
        found = next(((depth, bound) for depth in range(1, len(parts)) if
                      (bound := _bindings(".".join(parts[:depth])).get(parts[depth])) is not None), None)
        if found is None:
            break
        parts = [*found[1].split("."), *parts[found[0] + 1:]]
    return ".".join(parts)


# C modules whose members a standard module re-exports under its own name (`os` does `from posix import *`); their
# source cannot be read, so they are named here.
_C_FACADES = {"posix": "os", "nt": "os"}


def _source(module: str) -> Path | None:
    """The source file of a standard library module or submodule (`email.utils`), found without importing it (a
    submodule's file is looked up in its top-level package's folder); None for a built-in or C module."""
    top, _, rest = module.partition(".")
    if top not in sys.stdlib_module_names:
        return None
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: found, not imported
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    if not rest:
        return Path(spec.origin)
    folder = Path(spec.origin).parent.joinpath(*rest.split("."))
    for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
        if Path(spec.origin).name == "__init__.py" and candidate.is_file():
            return candidate
    return None


@functools.cache
def _bindings(module: str) -> dict[str, str]:
    """The names a standard library module or submodule binds by its own imports, relative ones too (name -> module or
    module.member), read from its source file; {} for any other module, a built-in one or one whose source cannot be
    read."""
    origin = _source(module)
    if origin is None:
        return {}
    # the package a relative import starts from: the module itself if it is a package's `__init__`, else its parent
    package = module if origin.name == "__init__.py" else module.rpartition(".")[0]
    try:
        tree = ast.parse(origin.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return {}
    bound: dict[str, str] = {}
    pending: list[ast.stmt] = list(tree.body)
    while pending:  # the module's own statements (in `if`/`try` blocks too), not its functions' or classes'
        node = pending.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
            source = _absolute(node, package)
            if source is not None:  # `from .process import current_process` in `multiprocessing`
                bound.update({alias.asname or alias.name: f"{source}.{alias.name}" for alias in node.names
                              if alias.name != "*"})
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            pending += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", []),
                        *(stmt for handler in getattr(node, "handlers", []) for stmt in handler.body)]
    bound.pop(module, None)
    return bound


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    """The module an import from names, a relative one (`from . import x`, `from ..y import z`) resolved against the
    package the importing module belongs to; None where it climbs past the top."""
    if not node.level:
        return node.module
    parts = package.split(".") if package else []
    if node.level - 1 > len(parts) - 1 or not parts:
        return None
    base = parts[:len(parts) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])
