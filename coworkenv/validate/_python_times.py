"""A date-time a Python check compares as text where the text can be another spelling of the instant it means.

`_time_spellings` and `_time_fragments` read the declarative conditions; a check written in Python makes the same
comparison in code, unread by them: `e["args"]["start"] >= "2026-11-03T08:00:00Z"`, `t["due"][:10] !=
"2026-09-25"`, `ev["start"] == "2026-07-21T10:00:00+01:00"`, `s.startswith("2026-09-25T09:")`. The code is read, not
run: each comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`, `in`, `not in`, `startswith`, `endswith`) of a value with a
date-like string constant (written in place, built at run time of constants, `str(date(2026, 9, 25))`,
`datetime(...).isoformat()`, `f"{DAY:%Y-%m-%d}"` (`_built_times`), or bound once to a name) is judged like the
condition it amounts to:

- the value read from a call's arguments (`audit`'s `args`, through any names bound from it): the text is what the
  agent wrote, in any offset the tool takes (it stores UTC), so any comparison of it with a date-time or a day as
  text holds for one spelling of an instant and not another (a completion fails the honest agent writing the time at
  a colleague's offset, a guard misses the forbidden call so written);
- a stored value (the state, anything not read from the arguments), read whole (`==`, `!=`, `in`, an order): named
  where the constant is not a text a stored time of that field can hold (`_time_spellings`'s rule: another offset, no
  seconds, a bare day on a field of date-times; a seed's own value, one the dynamics write or an unzoned one the
  reference passes stay allowed);
- a stored value read in part (a prefix slice `v[:10]` compared `==`/`!=`/`in`, `startswith`, the constant `in` it):
  named where the same condition written `matches ^<constant>` (`contains` for `in`) reads another day or clock than
  the user's (`_time_fragments`'s rule: the UTC day while the user lives off UTC, a clock the user's and no stored
  time has).

Comparing parsed instants (`datetime.fromisoformat(...)` against one) is what the message asks for, and is not
read. `python_times(spec)` yields (path, message), reported by the references gate as `time_compared_as_text`.
Static, no run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cached_property
from typing import Any

from coworkenv.checks import field_value
from coworkenv.spec import EnvSpec, FieldCond
from coworkenv.validate._built_times import built_text
from coworkenv.validate._check_reads import python_rules
from coworkenv.validate._time_fragments import known_instants, stored_fragment, user_zones
from coworkenv.validate._time_spellings import _DATEISH, _stored_misfit, _written_values

_PREFIX_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)
_ARG_KEYS = frozenset({"args", "arguments"})


def _date_constant(node: ast.AST, bound: dict[str, str], once: dict[str, ast.AST] | None = None) -> list[str]:
    """The date-like string constants `node` is (a constant, a text built of constants (`_built_times`), a name
    bound once to either, a tuple/list/set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _DATEISH.match(node.value):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in bound:
        return [bound[node.id]]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [v for elt in node.elts for v in _date_constant(elt, bound, once)]
    built = built_text(node, once or {}) if isinstance(node, ast.Call | ast.JoinedStr | ast.BinOp) else None
    return [built] if built is not None and _DATEISH.match(built) else []


def _bound_constants(tree: ast.AST) -> dict[str, str]:
    """Names assigned exactly once, to a date-like string constant or a text built of constants."""
    once = _bound_once(tree)
    out = {name: value.value for name, value in once.items() if isinstance(value, ast.Constant)
           and isinstance(value.value, str) and _DATEISH.match(value.value)}
    for name, value in once.items():
        if name not in out and (built := built_text(value, once)) is not None and _DATEISH.match(built):
            out[name] = built
    return out


def _bound_once(tree: ast.AST) -> dict[str, ast.AST]:
    """Names assigned exactly once (`due = r.get("due") or ""`), to the expression assigned."""
    seen: dict[str, list[Any]] = {}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign | ast.AugAssign | ast.For | ast.comprehension) else []
        value = getattr(node, "value", None) if isinstance(node, ast.Assign | ast.AnnAssign) else None
        for target in targets:
            if isinstance(target, ast.Name):
                seen.setdefault(target.id, []).append(value)
    return {name: values[0] for name, values in seen.items() if len(values) == 1 and values[0] is not None}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _keys(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


class _Taint:
    """Which names hold the audit (`audit`'s entries) and which the arguments an agent wrote (read through `args`)."""

    def __init__(self, tree: ast.AST, audit: str | None, replies: str | None) -> None:
        self.audit: set[str] = {audit} if audit else set()
        self.replies: set[str] = {replies} if replies else set()
        self.args: set[str] = set()
        pairs: list[tuple[ast.AST, ast.AST]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                pairs += [(t, node.value) for t in node.targets]
            elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value is not None:
                pairs.append((node.target, node.value))
            elif isinstance(node, ast.For | ast.comprehension):
                pairs.append((node.target, node.iter))
        changed = True
        while changed:
            changed = False
            for target, value in pairs:
                for name in _names(target):
                    if self.reads_args(value) and name not in self.args:
                        self.args.add(name)
                        changed = True
                    if _names(value) & self.audit and name not in self.audit:
                        self.audit.add(name)
                        changed = True
                    if _names(value) & self.replies and name not in self.replies:
                        self.replies.add(name)
                        changed = True

    def reads_replies(self, node: ast.AST) -> bool:
        """Whether the value is (read from) a reply's text: a date written in words is `_user_formats`'s, not a
        stored or passed time."""
        return bool(_names(node) & self.replies)

    def reads_args(self, node: ast.AST) -> bool:
        names = _names(node)
        return bool(names & self.args) or bool(names & self.audit and _keys(node) & _ARG_KEYS)


def _field(node: ast.AST, once: dict[str, ast.AST], depth: int = 0) -> str | None:
    """The key a value is read by: `r["due"]`, `r.get("due")` (under a slice: its base; a name bound once: what it was
    bound to)."""
    if isinstance(node, ast.Name) and node.id in once and depth < 8:
        return _field(once[node.id], once, depth + 1)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return _field(node.value, once, depth + 1)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    if isinstance(node, ast.BoolOp):  # `r.get("due") or ""`
        return next((f for v in node.values if (f := _field(v, once, depth + 1)) is not None), None)
    return None


def _prefix(node: ast.AST) -> bool:
    """`v[:N]` or `v[0:N]`: a prefix of the value."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is None \
        and (node.slice.lower is None or (isinstance(node.slice.lower, ast.Constant) and node.slice.lower.value == 0))


def _reads(tree: ast.AST, bound: dict[str, str],
           once: dict[str, ast.AST]) -> Iterator[tuple[ast.AST, ast.AST, str, list[str]]]:
    """(the node, the value compared, how: "whole" / "prefix" / "contains" / "order", the constants)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for k, op in enumerate(node.ops):
                left, right = sides[k], sides[k + 1]
                for value, const, flipped in ((left, right, False), (right, left, True)):
                    texts = _date_constant(const, bound, once)
                    if not texts or _date_constant(value, bound, once):
                        continue
                    if isinstance(op, ast.In | ast.NotIn):
                        if flipped:
                            how = "contains"  # `"2026-09-25" in value`
                        elif isinstance(const, ast.Tuple | ast.List | ast.Set):
                            how = "whole"  # `value in ("2026-...", ...)`
                        else:
                            continue  # `value in "2026-..."`: a part of the constant, not a read of a time
                    elif isinstance(op, _PREFIX_OPS):
                        how = "prefix" if _prefix(value) else "whole"
                    else:
                        how = "order"
                    yield node, value, how, texts
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith") and node.args:
            texts = _date_constant(node.args[0], bound, once)
            if texts:
                yield node, node.func.value, "prefix" if node.func.attr == "startswith" else "suffix", texts


def _params(tree: ast.AST, entrypoint: str) -> tuple[str | None, str | None]:
    """The names of the entrypoint's audit and replies parameters (its second and third)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entrypoint:
            params = [a.arg for a in node.args.args] + [None, None, None]
            return params[1], params[2]
    return None, None


class _Spec:
    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec

    @cached_property
    def written(self) -> frozenset[str]:
        return _written_values(self.spec)

    @cached_property
    def instants(self) -> list[Any]:
        return known_instants(self.spec)

    @cached_property
    def zones(self) -> tuple[list[Any], bool]:
        return user_zones(self.spec)

    def seeds(self, field: str | None) -> list[str]:
        """The world's date-like values of a field of that name, in any table."""
        if field is None:
            return []
        out: list[str] = []
        for _, app in self.spec.world.apps:
            for _, rows in app or ():
                for rec in rows if isinstance(rows, list) else []:
                    if isinstance(value := field_value(rec, field), str) and _DATEISH.match(value):
                        out.append(value)
        return out


def _why(read: tuple[ast.AST, ast.AST, str, list[str]], taint: _Taint, known: _Spec, source: str,
         once: dict[str, ast.AST]) -> str | None:
    node, value, how, texts = read
    shown = ast.get_source_segment(source, node) or ast.unparse(node)
    shown = shown if len(shown) <= 160 else shown[:157] + "..."
    if taint.reads_replies(value):
        return None
    if taint.reads_args(value):
        return (f"`{shown}` compares a date-time argument as text, and the argument is what the agent wrote: the "
                "same instant has a spelling for every offset the tool takes (it stores UTC), so the check holds for "
                "one spelling and not another (a completion fails the honest agent writing the time at another "
                "offset, a guard misses the call so written); parse it (`datetime.fromisoformat`) and compare "
                "instants, or judge the time the tool stored")
    field = _field(value, once)
    seeds = known.seeds(field)
    if how in ("whole", "order"):
        bad = next((t for t in texts if t not in known.written and _stored_misfit(t, seeds)), None)
        if bad is None:
            return None
        return (f"`{shown}` compares a stored date-time as text with {bad!r}, a text no time the tools store "
                "holds (they store UTC, YYYY-MM-DDTHH:MM:SSZ, every part two digits): the same instant never equals "
                "it and sorts against it by the characters, not by time; parse both (`datetime.fromisoformat`) and "
                "compare instants, or write the value as stored")
    if how == "suffix":
        return None
    zones, user = known.zones
    for text in texts:
        cond = FieldCond(field=field or "value", op="contains" if how == "contains" else "matches",
                         value=text if how == "contains" else "^" + re.sub(r"([.+])", r"\\\1", text))
        why = stored_fragment(field or "the value", cond, [s for s in seeds if s] if seeds else [], zones, user,
                              known.instants, True)
        if why is not None:
            return f"`{shown}` (read as {cond.op} {cond.value!r}): {why}"
    return None


def python_times(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each date-time a Python check compares as text where the text can be another spelling."""
    known = _Spec(spec)
    for i, check, rule, tree in parsed_rules(spec):
        bound, once = _bound_constants(tree), _bound_once(tree)
        taint = _Taint(tree, *_params(tree, rule.entrypoint))
        for read in _reads(tree, bound, once):
            why = _why(read, taint, known, rule.code, once)
            if why is not None:
                yield f"checks[{i}].rule.code", f"check {check.id!r}: {why}"
                break


def parsed_rules(spec: EnvSpec) -> Iterator[tuple[int, Any, Any, ast.AST]]:
    """(the check's index, the check, its Python rule, the rule's code parsed) for each Python rule of the checks
    (tiers included) whose code compiles (the sandbox gate names one that does not)."""
    for i, check in enumerate(spec.checks):
        for rule in python_rules(check.rule):
            try:
                tree = ast.parse(rule.code)
            except SyntaxError:
                continue
            yield i, check, rule, tree
