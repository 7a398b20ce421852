"""Which parts of an episode a Python check reads: `state`, `audit` or `messages` (the agent's replies).

The verifier calls `entrypoint(state=..., audit=..., messages=...)` by keyword, so a check reads a part exactly
when the body of its entrypoint loads the parameter of that name. Told from the syntax tree, not from words in
the code: a check over the mail or chat `messages` table (`state["apps"]["chat"]["messages"]`) does not read the
replies, and a check that takes `**kwargs` reads every part without naming it. Whatever the tree cannot settle
(no single plain entrypoint, a decorator, `**kwargs`, `locals()`/`eval`/frame access, code that does not parse)
counts as reading every part: a gate that wrongly thinks a part unread would skip the near misses that test it.

Which tool names a check may match (`names_tool`) is told from its string constants, by how each is used: compared
whole (`a["tool"] == "mail_label"`, `in {...}`), as a prefix or suffix (`.startswith("todo_add")`), as a substring
(`"label" in a["tool"]`) or as a regular expression (`re.match(r"mail_(label|move)", ...)`); a comment is not a
name. A name built at run time (concatenation, f-string, `format`, `join`), introspection or code that does not
parse counts as naming every tool.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from coworkenv.spec import Check, CheckRule, PythonRule, TiersRule
from coworkenv.spec_regex import PatternRefused, PatternTimeout, search

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
    fn = _plain_entry(tree, entrypoint)
    return PARTS if fn is None else _loaded_parts(fn)


def _plain_entry(tree: ast.Module, entrypoint: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The entrypoint's one plain `def` (no decorator, no `**kwargs`, never rebound), or None."""
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == entrypoint]
    if len(defs) != 1 or _rebinds(tree, entrypoint, defs[0]):
        return None
    fn = defs[0]
    return None if fn.decorator_list or fn.args.kwarg is not None else fn


def _loaded_parts(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[Part]:
    params = {a.arg for a in (*fn.args.args, *fn.args.kwonlyargs)}
    loaded = {n.id for stmt in fn.body for n in ast.walk(stmt)
              if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    return frozenset(p for p in PARTS if p in params and p in loaded)


# Names through which code reaches objects or frames without a reference of its own (the garbage collector, a
# function's or frame's globals, a module's dict, an attribute named at run time, a stack's locals): `job_reads`
# reads every part where one is named.
_REACHES = frozenset({"gc", "get_objects", "get_referrers", "get_referents", "ctypes", "traceback", "pdb", "bdb",
                      "code", "tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_globals", "__globals__", "__dict__",
                      "__getattribute__", "__closure__", "__builtins__", "builtins", "importlib", "import_module",
                      "attrgetter", "methodcaller", "modules", "settrace", "setprofile"})
Paths = frozenset[tuple[str, ...]]


@lru_cache(maxsize=1024)
def job_reads(code: str, entrypoint: str = "check") -> tuple[frozenset[Part], Paths | None]:
    """What a run of the check can tell apart, for the verifier's run memo (`coworkenv.validate._run_memo`): the
    parts its entrypoint reads (as `parts_read`) and the paths into `state` it reads (`("clock",)`, `("apps",
    "mail", "messages")`; None: the whole state).

    Stricter than `parts_read` in what it names (any of `_REACHES` reads every part), and one thing looser: a
    `import sys` whose name the code never uses is no introspection (the module is bound, never reached: no name
    of it loads, and nothing that reaches a global by another way is named).

    Each load of the `state` parameter in the entrypoint (nested functions and comprehensions included) is followed
    through the constant keys taken from it at once (`state["apps"]["mail"]`, `state.get("apps", {}).get("mail")`);
    the path ends at anything else (a variable key, a method, a loop, a call it is handed to), and the check may read
    all below it. A payload is a tree (decoded JSON: no object reachable two ways), so every object the check can
    reach lies below one of these paths. The whole state is read where the tree cannot settle it: `state` used bare
    (handed on, iterated, aliased, unpacked), the parameter rebound or declared `global`/`nonlocal`, or a key of it
    stored or deleted (`state["x"] = ...`)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return PARTS, None
    if _introspects(tree, unused_sys=True) or any(
            (isinstance(n, ast.Name) and n.id in _REACHES) or (isinstance(n, ast.Attribute) and n.attr in _REACHES)
            or (isinstance(n, ast.Import | ast.ImportFrom) and any(a.name.split(".")[0] in _REACHES for a in n.names))
            or (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in _REACHES | _INTROSPECTION)
            for n in ast.walk(tree)):
        return PARTS, None
    fn = _plain_entry(tree, entrypoint)
    if fn is None:
        return PARTS, None
    parts = _loaded_parts(fn)
    return parts, _state_paths(fn) if "state" in parts else frozenset()


def _state_paths(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Paths | None:
    parents = {id(child): node for stmt in fn.body for node in ast.walk(stmt) for child in ast.iter_child_nodes(node)}
    paths: set[tuple[str, ...]] = set()
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Global | ast.Nonlocal) and "state" in node.names:
                return None
            if not isinstance(node, ast.Name) or node.id != "state":
                continue
            if not isinstance(node.ctx, ast.Load):
                return None  # the parameter rebound or deleted
            path = _keys_taken(node, parents)
            if not path:
                return None
            paths.add(path)
    return frozenset(paths)


def _keys_taken(node: ast.expr, parents: dict[int, ast.AST]) -> tuple[str, ...] | None:
    """The constant keys taken from `node` at once (`node["a"]["b"]`, `node.get("a")`); None where one is stored or
    deleted."""
    keys: list[str] = []
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if not isinstance(parent.ctx, ast.Load):
                return None
            if not (isinstance(parent.slice, ast.Constant) and isinstance(parent.slice.value, str)):
                return tuple(keys)
            keys.append(parent.slice.value)
            node = parent
            continue
        call = parents.get(id(parent)) if isinstance(parent, ast.Attribute) and parent.value is node else None
        if isinstance(parent, ast.Attribute) and parent.attr == "get" and isinstance(call, ast.Call) \
                and call.func is parent and 1 <= len(call.args) <= 2 and not call.keywords \
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
            keys.append(call.args[0].value)
            node = call
            continue
        return tuple(keys)


@lru_cache(maxsize=1024)
def turns_read(code: str, entrypoint: str = "check") -> frozenset[int] | None:
    """The turns whose replies a check reading `messages` reads, where its code says so (None: every turn).

    Told only where each use of `messages` in the entrypoint is the source of a comprehension that keeps the
    items of given turns (`[m["text"] for m in messages if m["turn"] == 0]`, `m.get("turn") in (0, 1)`, a
    conjunct of an `and`); any other use (a loop, an alias, an index, a call) reads every turn."""
    if "messages" not in parts_read(code, entrypoint):
        return frozenset()
    tree = ast.parse(code)  # parts_read parsed it, with one plain entrypoint
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == entrypoint)
    uses = [n for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == "messages"]
    sources = {id(gen.iter): gen for stmt in fn.body for n in ast.walk(stmt)
               if isinstance(n, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp)
               for gen in n.generators if isinstance(gen.target, ast.Name)}
    turns: set[int] = set()
    for use in uses:
        gen = sources.get(id(use))
        kept = _turns_kept(gen.target.id, gen.ifs) if gen is not None and isinstance(gen.target, ast.Name) else None
        if kept is None:
            return None
        turns |= kept
    return frozenset(turns)


def _turns_kept(item: str, conditions: list[ast.expr]) -> set[int] | None:
    """The turns a comprehension's conditions keep (`item["turn"] == 0` or `in (0, 1)`, alone or in an `and`)."""
    conjuncts = list(conditions)
    while any(isinstance(c, ast.BoolOp) and isinstance(c.op, ast.And) for c in conjuncts):
        conjuncts = [v for c in conjuncts for v in (c.values if isinstance(c, ast.BoolOp) and isinstance(c.op, ast.And)
                                                     else [c])]
    for c in conjuncts:
        if not isinstance(c, ast.Compare) or len(c.ops) != 1:
            continue
        left, right, op = c.left, c.comparators[0], c.ops[0]
        if isinstance(op, ast.Eq) and _is_turn_of(right, item):
            left, right = right, left
        if not _is_turn_of(left, item):
            continue
        values = [right] if isinstance(op, ast.Eq) else \
            right.elts if isinstance(op, ast.In) and isinstance(right, ast.Tuple | ast.List | ast.Set) else None
        if values and all(isinstance(v, ast.Constant) and type(v.value) is int for v in values):
            return {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, int)}
    return None


def _is_turn_of(node: ast.expr, item: str) -> bool:
    """Whether `node` is `item["turn"]` or `item.get("turn")`."""
    if isinstance(node, ast.Subscript):
        base, key = node.value, node.slice
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and len(node.args) == 1 and not node.keywords:
        base, key = node.func.value, node.args[0]
    else:
        return False
    return isinstance(base, ast.Name) and base.id == item and isinstance(key, ast.Constant) and key.value == "turn"


def _introspects(tree: ast.AST, unused_sys: bool = False) -> bool:
    """Whether the code names a way to a function's locals; `unused_sys`: a plain `import sys` alone is none."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _INTROSPECTION:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _INTROSPECTION:
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
                a.name.split(".")[0] in _INTROSPECTION and not (unused_sys and isinstance(node, ast.Import)
                                                                 and a.name == "sys" and a.asname is None)
                for a in node.names):
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


@dataclass(frozen=True)
class _Strings:
    """The string constants of a check by use (lower case); `every` when a name may be built at run time."""

    whole: frozenset[str] = frozenset()
    prefixes: frozenset[str] = frozenset()
    suffixes: frozenset[str] = frozenset()
    parts: frozenset[str] = frozenset()
    patterns: frozenset[str] = frozenset()
    every: bool = False


_BUILDS = frozenset({"format", "join", "format_map"})
_REGEX = frozenset({"match", "search", "fullmatch", "compile", "findall", "finditer"})


def names_tool(code: str, tool: str) -> bool:
    """Whether the check may match the tool name `tool` (True whenever the syntax tree cannot tell)."""
    s, name = _strings(code), tool.lower()
    if s.every or name in s.whole or any(name.startswith(p) for p in s.prefixes) or \
            any(name.endswith(x) for x in s.suffixes) or any(p in name for p in s.parts):
        return True
    for pattern in s.patterns:
        try:
            if search(pattern, name, ignorecase=True):
                return True
        except (PatternRefused, PatternTimeout):  # a pattern refused or too slow: it may match
            return True
    return False


def _constants(node: ast.AST | None) -> list[str] | None:
    """The strings of a constant or a tuple/list/set of constants (None for anything else)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value.lower()]
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value.lower() for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


@lru_cache(maxsize=1024)
def _strings(code: str) -> _Strings:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return _Strings(every=True)
    if _introspects(tree):
        return _Strings(every=True)
    whole: set[str] = set()
    used: dict[str, set[str]] = {"prefixes": set(), "suffixes": set(), "parts": set(), "patterns": set()}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod)
                                               and (_constants(node.left) or _constants(node.right))):
            return _Strings(every=True)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            whole.add(node.value.lower())
        elif isinstance(node, ast.Compare) and _constants(node.left) and \
                any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            used["parts"].update(_constants(node.left) or [])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr, first = node.func.attr, _constants(node.args[0]) if node.args else None
            if attr in _BUILDS:
                return _Strings(every=True)
            if attr in ("startswith", "endswith", "removeprefix", "removesuffix"):
                if first is None:
                    return _Strings(every=True)
                used["prefixes" if attr in ("startswith", "removeprefix") else "suffixes"].update(first)
            elif attr in _REGEX and isinstance(node.func.value, ast.Name) and node.func.value.id == "re":
                if first is None:
                    return _Strings(every=True)
                used["patterns"].update(first)
    return _Strings(frozenset(whole), frozenset(used["prefixes"]), frozenset(used["suffixes"]),
                    frozenset(used["parts"]), frozenset(used["patterns"]))


def nested_rules(rule: CheckRule, where: str = "rule", reaching: float | None = None,
                 ) -> Iterator[tuple[str, CheckRule]]:
    """Every simple rule a check's rule is made of, with its path below the check (`rule`, `rule.tiers[0].rule`,
    ...): the rule itself, or each one a composite rule (`tiers`) holds, at any depth. The one walk every gate that
    reads a check's rules goes through: a gate that looked at `check.rule` alone judged a rule wrapped in a tier as
    a whole and missed what it reads, calls, pins or leaks.

    Given `reaching` (the check's `pass_score`), only the rules that pass the check alone when they hold: those of
    the tiers scoring at least that much (a tier of nested tiers holds when they score 1, so deeper tiers must)."""
    if isinstance(rule, TiersRule):
        for k, tier in enumerate(rule.tiers):
            if reaching is None or tier.score >= reaching:
                yield from nested_rules(tier.rule, f"{where}.tiers[{k}].rule", None if reaching is None else 1.0)
    else:
        yield where, rule


def rule_kind(rule: CheckRule) -> str:
    """The kind a check is judged as: that of its simple rules when they are all of one kind (a `field` rule in a
    tier is a state check), else its own (`tiers`)."""
    kinds = {found.kind for _, found in nested_rules(rule)}
    return kinds.pop() if len(kinds) == 1 else rule.kind


def spec_rules(checks: Iterable[Check]) -> Iterator[tuple[int, Check, str, CheckRule]]:
    """(index, check, path, rule) for every simple rule of every check (`nested_rules`), the path from the spec
    (`checks[2].rule.tiers[0].rule`)."""
    for i, check in enumerate(checks):
        for where, rule in nested_rules(check.rule, f"checks[{i}].rule"):
            yield i, check, where, rule


def python_rules(rule: CheckRule) -> list[PythonRule]:
    """Every Python rule of a check's rule (`nested_rules`). A tier's Python rule is sandboxed code like any other:
    the gates that looked at `check.rule` alone let one hold a backdoor word, a clock or a random draw that no
    probe ever ran."""
    return [found for _, found in nested_rules(rule) if isinstance(found, PythonRule)]
