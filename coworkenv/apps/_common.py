"""Small shared pieces of the app toolkits."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from operator import attrgetter, itemgetter
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

from coworkenv.tools import ToolError
from coworkenv.world import Record, parse_time

MAX_LIMIT = 200


def matches(query: str | None, *texts: str | None) -> bool:
    """Case-insensitive: every word of `query` occurs in one of `texts`."""
    if not query:
        return True
    haystack = " ".join(t for t in texts if t).lower()
    return all(word in haystack for word in query.lower().split())


def dump(record: Record, *fields: str) -> dict[str, Any]:
    """A record as JSON; only `fields` when given (summaries keep observations short)."""
    plan = _dump_plan(type(record), fields)
    values = record.__dict__
    if plan is not None and _finite(values, plan.floats):
        # Strings, numbers, flags and lists of strings are their own JSON: read them straight from the frozen record
        # (lists copied) instead of running the serializer, the bulk of a search call's cost otherwise.
        return plan.row(values)
    data = record.model_dump(mode="json")
    return {k: data[k] for k in fields} if fields else data


def dump_many(records: Iterable[Record], *fields: str) -> list[dict[str, Any]]:
    """`[dump(r, *fields) for r in records]`, with the plan looked up once (list tools' hot path)."""
    rows = records if isinstance(records, list) else list(records)
    if not rows:
        return []
    kinds = set(map(type, rows))
    if len(kinds) == 1:
        plan = _dump_plan(kinds.pop(), fields)
        if plan is not None:
            values = list(map(_VALUES, rows))
            if not plan.floats or _all_finite(values, plan.floats):
                return list(map(plan.row, values))
    return [dump(r, *fields) for r in rows]  # several models, or a float the serializer writes as null


_VALUES = attrgetter("__dict__")


@dataclass(frozen=True)
class _Plan:
    """How a record of one model becomes its JSON object without the serializer."""

    row: Callable[[dict[str, Any]], dict[str, Any]]  # the record's __dict__ -> its JSON object (lists copied)
    floats: tuple[str, ...]  # fields that may hold a float: NaN or an infinity needs the serializer (see _finite)


@cache
def _dump_plan(model: type[Record], fields: tuple[str, ...]) -> _Plan | None:
    """The plan for `model` when every field in `fields` (all when empty) is plain JSON; None: use the serializer."""
    infos = model.model_fields
    names = fields or tuple(infos)
    if not all(n in infos and _plain(infos[n].annotation) for n in names):
        return None
    lists = [n for n in names if get_origin(infos[n].annotation) is list]
    return _Plan(_row_function(model, names, lists, whole=not fields),
                 tuple(n for n in names if _may_be_float(infos[n].annotation)))


def _row_function(model: type[Record], names: tuple[str, ...], lists: list[str], whole: bool) -> Callable[
        [dict[str, Any]], dict[str, Any]]:
    """A function made for these fields (as dataclasses makes __init__): a dict display or a copy runs in C, where a
    comprehension over the names costs a Python loop turn per field (2-4x the time for a list tool's rows)."""
    display = "{" + ", ".join(f"{n!r}: list(v[{n!r}])" if n in lists else f"{n!r}: v[{n!r}]" for n in names) + "}"
    if whole:
        # A record's __dict__ holds its fields in declaration order (pydantic builds it so; model_copy and the
        # sealed loader keep it; record digests rely on it too): copying it gives the serializer's object.
        copies = "".join(f"    r[{n!r}] = list(r[{n!r}])\n" for n in lists)
        body = (f"    if len(v) != {len(names)}:\n        return {display}\n"
                f"    r = v.copy()\n{copies}    return r\n")
    else:
        body = f"    return {display}\n"
    namespace: dict[str, Any] = {}
    exec(compile(f"def row(v):\n{body}", f"<dump {model.__name__}>", "exec"), namespace)
    return namespace["row"]  # type: ignore[no-any-return]


def _finite(values: dict[str, Any], floats: tuple[str, ...]) -> bool:
    """No float field holds NaN or an infinity (the serializer writes those as null: it dumps such a record)."""
    for n in floats:
        v = values[n]
        if isinstance(v, float) and not math.isfinite(v):
            return False
    return True


def _all_finite(rows: list[dict[str, Any]], floats: tuple[str, ...]) -> bool:
    """`_finite` of every row, in C when the float fields hold only numbers and None (falsy values are finite)."""
    for n in floats:
        column = list(map(itemgetter(n), rows))
        if set(map(type, column)) <= _NUMBERS:
            if not all(map(math.isfinite, filter(None, column))):
                return False
        elif not all(_finite(v, (n,)) for v in rows):
            return False
    return True


_NUMBERS = {float, int, bool, NoneType}


def _may_be_float(annotation: Any) -> bool:
    return annotation is float or (get_origin(annotation) in (Union, UnionType) and float in get_args(annotation))


_SCALARS = (str, int, float, bool, NoneType)


def _plain(annotation: Any) -> bool:
    """True when a field's values serialize to JSON as they are: str, int, float, bool, None, literals, lists of str
    (a float that is NaN or infinite excepted: see `_finite`)."""
    origin = get_origin(annotation)
    if origin is None:
        return annotation in _SCALARS
    if origin is Literal:
        return all(isinstance(a, str | int | bool) and not isinstance(a, float) for a in get_args(annotation))
    if origin in (Union, UnionType):
        return all(_plain(a) for a in get_args(annotation))
    if origin is list:
        return get_args(annotation) in ((str,), (int,))
    return False


def clamp(limit: int) -> int:
    return max(1, min(limit, MAX_LIMIT))


def parse_when(value: str) -> int:
    """An ISO-8601 time argument as UTC seconds, or a ToolError saying how to write it."""
    try:
        return parse_time(value)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
