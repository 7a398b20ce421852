"""The text of a date-time a Python check builds at run time out of constants, read without running it.

`_python_times` judges a comparison with a date-like string constant; an author who builds the constant instead,
`str(date(2026, 9, 25))`, `datetime(2026, 11, 3, 8, tzinfo=timezone.utc).isoformat()`, `(date(2026, 9, 25) +
timedelta(days=1)).isoformat()`, `f"{day}T09:00"` with `day = "2026-09-25"`, compares the same text. `built_text`
folds such an expression, made of literals, names bound once, `date`/`datetime`/`timedelta`/`timezone.utc`
constructors, `+`/`-`, `str`, f-strings and the methods `isoformat`, `strftime`, `date`, `replace` (of a text), into
the text it makes; None where any part is anything else (a value read from the state, a call of the code's own). The
code is only read (the values are built by this module from the literals, no code of the check runs), and what it
builds is kept small: no text longer than `_MAX_TEXT` is made or kept, so a spec cannot have the verifier build a
gigabyte out of a short expression (`f"{1:>999999999}"`, a `replace` of every gap).
"""

from __future__ import annotations

import ast
import re
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any

_DEPTH = 12
_TYPES = (date, datetime)
_MAX_TEXT = 256  # longer than any date-time's text; what is folded stays under it


def built_text(node: ast.AST, once: dict[str, ast.AST]) -> str | None:
    """The text `node` builds (a str), where it is built of constants only; None otherwise."""
    value = _value(node, once, 0)
    return value if isinstance(value, str) and not isinstance(node, ast.Constant) else None


def _value(node: ast.AST, once: dict[str, ast.AST], depth: int) -> Any:
    if depth > _DEPTH:
        return None
    try:
        value = _fold(node, once, depth + 1)
    except (ValueError, TypeError, OverflowError, KeyError):
        return None
    return None if isinstance(value, str) and len(value) > _MAX_TEXT else value


def _fold(node: ast.AST, once: dict[str, ast.AST], depth: int) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | str) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in once:
            return _value(once[node.id], once, depth)
        return UTC if node.id == "UTC" else None
    if isinstance(node, ast.Attribute) and node.attr in ("utc", "UTC"):
        return UTC  # timezone.utc, datetime.UTC, dt.timezone.utc
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _value(node.operand, once, depth)
        return -inner if isinstance(inner, int) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        left, right = _value(node.left, once, depth), _value(node.right, once, depth)
        if isinstance(left, _TYPES) and isinstance(right, timedelta):
            return left + right if isinstance(node.op, ast.Add) else left - right
        if isinstance(left, str) and isinstance(right, str) and isinstance(node.op, ast.Add):
            return left + right
        return None
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
                continue
            if not isinstance(part, ast.FormattedValue) or part.conversion not in (-1, ord("s")):
                return None
            inner = _value(part.value, once, depth)
            spec = "" if part.format_spec is None else _value(part.format_spec, once, depth)
            if inner is None or not isinstance(spec, str) or any(int(n) > _MAX_TEXT for n in re.findall(r"\d+", spec)):
                return None  # a width or precision past any date-time's text is not built
            parts.append(format(inner, spec) if part.conversion == -1 else str(inner))
        return "".join(parts)
    if isinstance(node, ast.Call):
        return _call(node, once, depth)
    return None


def _call(node: ast.Call, once: dict[str, ast.AST], depth: int) -> Any:
    func = node.func
    args = [_value(a, once, depth) for a in node.args]
    kwargs = {k.arg: _value(k.value, once, depth) for k in node.keywords if k.arg is not None}
    if any(a is None for a in args) or any(v is None for v in kwargs.values()) or len(kwargs) != len(node.keywords):
        return None
    if isinstance(func, ast.Attribute) and not _module(func.value, once):
        base = _value(func.value, once, depth)
        if (isinstance(base, _TYPES) and func.attr in ("isoformat", "strftime")) or (isinstance(base, str) and \
                func.attr == "replace" and args[:1] != [""]) or (isinstance(base, datetime) and func.attr == "date"
                                                               and not args):
            return getattr(base, func.attr)(*args, **kwargs)
        return None
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name == "str" and len(args) == 1 and not kwargs and isinstance(args[0], date | str | int):
        return str(args[0])
    if name in ("date", "datetime") and args and all(isinstance(a, int) for a in args) and set(kwargs) <= {"tzinfo"} \
            and all(isinstance(v, tzinfo) for v in kwargs.values()):
        return date(*args) if name == "date" and not kwargs else datetime(*args, **kwargs)
    if name == "timedelta" and all(isinstance(a, int) for a in [*args, *kwargs.values()]):
        return timedelta(*args, **kwargs)
    return None


def _module(node: ast.AST, once: dict[str, ast.AST]) -> bool:
    """`datetime.date(...)`, `dt.datetime(...)`: a constructor named through its module (a name the code does not
    bind)."""
    if isinstance(node, ast.Attribute) and node.attr in ("datetime", "date"):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("datetime", "dt") and node.id not in once
