"""Small shared pieces of the app toolkits."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

from coworkenv.tools import ToolError
from coworkenv.world import Record, parse_time

MAX_LIMIT = 200
_Plan = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]  # see _dump_plan


def matches(query: str | None, *texts: str | None) -> bool:
    """Case-insensitive: every word of `query` occurs in one of `texts`."""
    if not query:
        return True
    haystack = " ".join(t for t in texts if t).lower()
    return all(word in haystack for word in query.lower().split())


def dump(record: Record, *fields: str) -> dict[str, Any]:
    """A record as JSON; only `fields` when given (summaries keep observations short)."""
    plan = _dump_plan(type(record), fields)
    if plan is not None and _finite(record.__dict__, plan[2]):
        # Strings, numbers, flags and lists of strings are their own JSON: read them straight from the frozen record
        # (lists copied) instead of running the serializer, the bulk of a search call's cost otherwise.
        names, lists, _ = plan
        values = record.__dict__
        out = {n: values[n] for n in names}
        for n in lists:
            out[n] = list(out[n])
        return out
    data = record.model_dump(mode="json")
    return {k: data[k] for k in fields} if fields else data


def dump_many(records: Iterable[Record], *fields: str) -> list[dict[str, Any]]:
    """`[dump(r, *fields) for r in records]`, with the plan looked up once per record type (list tools' hot path)."""
    out: list[dict[str, Any]] = []
    kind: type[Record] | None = None
    plan: _Plan | None = None
    for record in records:
        if type(record) is not kind:
            kind = type(record)
            plan = _dump_plan(kind, fields)
        values = record.__dict__
        if plan is None or (plan[2] and not _finite(values, plan[2])):
            out.append(dump(record, *fields))
            continue
        names, lists, _ = plan
        row = {n: values[n] for n in names}
        for n in lists:
            row[n] = list(row[n])
        out.append(row)
    return out


@cache
def _dump_plan(model: type[Record], fields: tuple[str, ...]) -> _Plan | None:
    """(field names, those holding lists, those that may hold floats) when every field is plain JSON; None: use the
    serializer."""
    infos = model.model_fields
    names = fields or tuple(infos)
    if not all(n in infos and _plain(infos[n].annotation) for n in names):
        return None
    return (names, tuple(n for n in names if get_origin(infos[n].annotation) is list),
            tuple(n for n in names if _may_be_float(infos[n].annotation)))


def _finite(values: dict[str, Any], floats: tuple[str, ...]) -> bool:
    """No float field holds NaN or an infinity (the serializer writes those as null: it dumps such a record)."""
    for n in floats:
        v = values[n]
        if isinstance(v, float) and not math.isfinite(v):
            return False
    return True


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
