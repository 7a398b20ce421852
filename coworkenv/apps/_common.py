"""Small shared pieces of the app toolkits."""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from operator import attrgetter, itemgetter
from types import NoneType, UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import orjson

from coworkenv.tools import RENDERING, ToolError
from coworkenv.world import Record, parse_time

MAX_LIMIT = 200
R = TypeVar("R", bound=Record)


def matches(query: str | None, *texts: str | None) -> bool:
    """Case-insensitive: every word of `query` occurs in one of `texts`."""
    if not query:
        return True
    haystack = " ".join(t for t in texts if t).lower()
    return all(word in haystack for word in query.lower().split())


def dump(record: Record, *fields: str) -> dict[str, Any]:
    """A record as JSON; only `fields` when given (summaries keep observations short). A field of the model's
    `shown_when_set` is left out while it is None (see `Record.shown_when_set`)."""
    plan = _dump_plan(type(record), fields)
    values = record.__dict__
    if plan is not None and _finite(values, plan.floats):
        # Strings, numbers, flags and lists of strings are their own JSON: read them straight from the frozen record
        # (lists copied) instead of running the serializer, the bulk of a search call's cost otherwise.
        return plan.row(values)
    data = record.model_dump(mode="json")
    out = {k: data[k] for k in fields} if fields else data
    for name in type(record).shown_when_set:
        if out.get(name, 0) is None:
            del out[name]
    return out


def dump_many(records: Iterable[Record], *fields: str) -> list[dict[str, Any]]:
    """`[dump(r, *fields) for r in records]`, with the plan looked up once (list tools' hot path).

    While a tool runs for a caller that only serializes its result (`coworkenv.tools.RENDERING`, `Env.step`), the rows
    are `orjson.Fragment`s of those dicts' JSON instead, each rendered once per record and kept while it lives
    (records are frozen): `orjson.dumps` of the result gives the same bytes without a dict built per row per call.
    """
    rows = records if isinstance(records, list) else list(records)
    if not rows:
        return []
    kinds = set(map(type, rows))
    if len(kinds) == 1:
        plan = _dump_plan(kinds.pop(), fields)
        if plan is not None:
            if plan.rendered is not None and RENDERING.get():
                return plan.rendered.rows(rows)
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
    # Each record's row as JSON, for callers that only serialize (None: the model's records take no weak reference).
    rendered: _Rendered | None = field(default=None, compare=False)


class _RecordRef(weakref.ref):  # type: ignore[type-arg]
    __slots__ = ("key",)
    key: int  # the record's id(), which the cache is keyed by


class _Rendered:
    """Each record's row JSON (an `orjson.Fragment` of `make(record)`) by `id(record)`, dropped when the record is (a
    weak reference's callback, run before the id can be reused): records are frozen, and `make` reads the record
    alone, so a record's row JSON never changes while it lives."""

    __slots__ = ("__weakref__", "_forget", "json", "make", "refs")

    def __init__(self, make: Callable[[Any], dict[str, Any]]) -> None:
        self.make = make
        self.json: dict[int, orjson.Fragment] = {}
        self.refs: dict[int, _RecordRef] = {}
        own = weakref.ref(self)

        def forget(ref: _RecordRef) -> None:
            cache = own()
            if cache is not None and cache.refs.get(ref.key) is ref:
                del cache.refs[ref.key], cache.json[ref.key]

        self._forget = forget

    def rows(self, records: list[Any]) -> list[Any]:
        """The records' rows as JSON fragments: `orjson.dumps` of the list gives the bytes of `[make(r) for r in
        records]`."""
        out: list[Any] = list(map(self.json.get, map(id, records)))
        if None not in out:
            return out
        for k, fragment in enumerate(out):
            if fragment is not None:
                continue
            record = records[k]
            # An exact-size copy: orjson's output keeps its ~4 KiB buffer, which a kept row would hold on to.
            out[k] = orjson.Fragment(memoryview(orjson.dumps(self.make(record))).tobytes())
            try:
                ref = _RecordRef(record, self._forget)
            except TypeError:  # a record without weak references: rendered each time
                continue
            ref.key = key = id(record)
            self.json[key], self.refs[key] = out[k], ref
        return out


def shape_many(records: list[R], shape: Callable[[R], dict[str, Any]]) -> list[dict[str, Any]]:
    """`[shape(r) for r in records]`, for a `shape` that reads the record alone (a module-level function): while a
    tool runs for a caller that only serializes its result (`RENDERING`), each record's row JSON is made once and
    kept while the record lives, as `dump_many` keeps it."""
    if records and RENDERING.get():
        return _shape_rendered(shape).rows(records)
    return list(map(shape, records))


@cache
def _shape_rendered(shape: Callable[[Any], dict[str, Any]]) -> _Rendered:
    return _Rendered(shape)


@cache
def _dump_plan(model: type[Record], fields: tuple[str, ...]) -> _Plan | None:
    """The plan for `model` when every field in `fields` (all when empty) is plain JSON; None: use the serializer."""
    infos = model.model_fields
    names = fields or tuple(infos)
    if not all(n in infos and _plain(infos[n].annotation) for n in names):
        return None
    lists = [n for n in names if get_origin(infos[n].annotation) is list]
    row = _row_function(model, names, lists, [n for n in names if n in model.shown_when_set], whole=not fields)
    floats = tuple(n for n in names if _may_be_float(infos[n].annotation))

    def make(record: Record) -> dict[str, Any]:  # what `dump` gives, for the record's cached row JSON
        values = record.__dict__
        return row(values) if _finite(values, floats) else dump(record, *fields)

    return _Plan(row, floats, _Rendered(make) if model.__weakrefoffset__ else None)


def _row_function(model: type[Record], names: tuple[str, ...], lists: list[str], when_set: list[str],
                  whole: bool) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A function made for these fields (as dataclasses makes __init__): a dict display or a copy runs in C, where a
    comprehension over the names costs a Python loop turn per field (2-4x the time for a list tool's rows). The
    fields of `when_set` are dropped from the row while None (the model's `shown_when_set`)."""
    display = "{" + ", ".join(f"{n!r}: list(v[{n!r}])" if n in lists else f"{n!r}: v[{n!r}]" for n in names) + "}"
    drops = "".join(f"    if r[{n!r}] is None:\n        del r[{n!r}]\n" for n in when_set)
    source = f"def fields(v):\n    r = {display}\n{drops}    return r\n"
    if whole:
        # A record's __dict__ holds its fields in declaration order (pydantic builds it so; model_copy and the
        # sealed loader keep it; record digests rely on it too): copying it gives the serializer's object.
        copies = "".join(f"    r[{n!r}] = list(r[{n!r}])\n" for n in lists)
        source += (f"def row(v):\n    if len(v) != {len(names)}:\n        return fields(v)\n"
                   f"    r = v.copy()\n{copies}{drops}    return r\n")
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<dump {model.__name__}>", "exec"), namespace)
    return namespace["row" if whole else "fields"]  # type: ignore[no-any-return]


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
