"""Which parts of an episode a Python check reads: `state`, `audit` or `messages` (the agent's replies).

The verifier calls `entrypoint(state=..., audit=..., messages=...)` by keyword, so a check reads a part exactly
when the body of its entrypoint loads the parameter of that name. Told from the syntax tree, not from words in
the code: a check over the mail or chat `messages` table (`state["apps"]["chat"]["messages"]`) does not read the
replies, and a check that takes `**kwargs` reads every part without naming it. Whatever the tree cannot settle
(no single plain entrypoint, a decorator, `**kwargs`, `locals()`/`eval`/frame access, code that does not parse)
counts as reading every part: a gate that wrongly thinks a part unread would skip the near misses that test it.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Literal

Part = Literal["state", "audit", "messages"]
PARTS: frozenset[Part] = frozenset({"state", "audit", "messages"})

# Names through which code reaches a function's locals without naming them.
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec", "globals", "compile", "__import__", "getattr",
                            "_getframe", "f_locals", "f_back", "currentframe", "inspect", "sys"})


@lru_cache(maxsize=1024)
def parts_read(code: str, entrypoint: str = "check") -> frozenset[Part]:
    """The parts of the episode the check's entrypoint reads (every part when the code cannot tell)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return PARTS
    if _introspects(tree):
        return PARTS
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == entrypoint]
    if len(defs) != 1 or _rebinds(tree, entrypoint, defs[0]):
        return PARTS
    fn = defs[0]
    if fn.decorator_list or fn.args.kwarg is not None:
        return PARTS
    params = {a.arg for a in (*fn.args.args, *fn.args.kwonlyargs)}
    loaded = {n.id for stmt in fn.body for n in ast.walk(stmt)
              if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    return frozenset(p for p in PARTS if p in params and p in loaded)


def _introspects(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _INTROSPECTION:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _INTROSPECTION:
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
                a.name.split(".")[0] in _INTROSPECTION for a in node.names):
            return True
    return False


def _rebinds(tree: ast.Module, name: str, fn: ast.AST) -> bool:
    """Whether module-level code binds `name` other than by its one `def` (the entrypoint could be another)."""
    for node in ast.walk(tree):
        if node is fn:
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.alias) and (node.asname or node.name) == name:
            return True
    return False
