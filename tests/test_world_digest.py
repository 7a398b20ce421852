"""Record digests and JSON forms read from field values equal the serializer's (the slow path), for every model."""

from __future__ import annotations

from datetime import UTC, datetime
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, field_serializer

from coworkenv.apps import APPS
from coworkenv.apps.notes import Note
from coworkenv.examples import example_names, load_example
from coworkenv.spec import UNSET_WHEN_FALSY, EnvSpec
from coworkenv.world import Record, Table, content_hash, json_form
from coworkenv.world._digest import digest_function
from coworkenv.world._hashing import record_digest

MODELS = [(app, table, model) for app, d in APPS.items() for table, model in d.tables.items()]
_TEXT = st.text(max_size=12)


def _values(annotation: Any) -> st.SearchStrategy[Any]:
    """Any value pydantic accepts for the annotation (JSON-like input, validated into the model)."""
    origin = get_origin(annotation)
    if annotation is str:
        return _TEXT
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return st.integers(-(2**40), 2**40)
    if annotation is float:
        return st.floats(allow_nan=True, allow_infinity=True) | st.integers(-5, 5)
    if annotation is NoneType:
        return st.none()
    if origin is Literal:
        return st.sampled_from(get_args(annotation))
    if origin in (Union, UnionType):
        return st.one_of(*[_values(a) for a in get_args(annotation)])
    if origin is list:
        return st.lists(_values(get_args(annotation)[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(_TEXT, _values(get_args(annotation)[1]), max_size=3)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _records(annotation)
    raise AssertionError(f"no strategy for {annotation!r}")


def _records(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    fields = model.model_fields
    return st.fixed_dictionaries(
        {n: _values(i.annotation) for n, i in fields.items() if i.is_required()},
        optional={n: _values(i.annotation) for n, i in fields.items() if not i.is_required()},
    )


def _slow(app: str, table: str, record: BaseModel) -> int:
    return record_digest(app, table, record.id, record.model_dump(mode="json", warnings=False))  # type: ignore[attr-defined]


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    """The value, or the error type (an int beyond 64 bits is no JSON for either path)."""
    try:
        return "value", fn(*args)
    except TypeError as exc:
        return "error", type(exc)


def _same_digest(app: str, table: str, record: BaseModel) -> bool:
    fast = _outcome(digest_function(type(record)), app, table, record.id, record)  # type: ignore[attr-defined]
    return fast == _outcome(_slow, app, table, record)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize(("app", "table", "model"), MODELS, ids=[f"{a}.{t}" for a, t, _ in MODELS])
def test_digest_of_any_record_equals_the_serializers(app: str, table: str, model: type[Record], data: Any) -> None:
    record = model.model_validate(data.draw(_records(model)))
    assert _same_digest(app, table, record)
    # A record replaced without validation (as dynamics' updates do) hashes as the serializer sees it too.
    name = data.draw(st.sampled_from(list(model.model_fields)))
    changed = record.model_copy(update={name: data.draw(st.none() | _TEXT | st.integers() | st.lists(_TEXT))})
    assert _same_digest(app, table, changed)


def _serialized_id(spec: EnvSpec) -> str:
    """The spec id from the serializer's dump: unused optional sections, empty tables and apps with no records are
    left out."""
    unused = {k for k in UNSET_WHEN_FALSY if not getattr(spec, k)}
    data = spec.model_dump(mode="json", by_alias=True, exclude=unused, warnings=False)
    data["world"]["apps"] = {app: {t: rows for t, rows in tables.items() if rows}
                             for app, tables in data["world"]["apps"].items() if any(tables.values())}
    return "env-" + content_hash(data)[:16]


def test_every_example_hashes_and_ids_as_the_serializer_does() -> None:
    for name in example_names():
        spec = load_example(name)
        assert json_form(spec.world.apps) == spec.world.apps.model_dump(mode="json", by_alias=True)
        assert spec.id == _serialized_id(spec)
        for app, table, _ in MODELS:
            for record in getattr(getattr(spec.world.apps, app), table):
                assert _same_digest(app, table, record)


class _Aliased(Record):
    title: str = Field(serialization_alias="Title")


class _Serialized(Record):
    when: str

    @field_serializer("when")
    def _upper(self, value: str) -> str:
        return value.upper()


class _Loose(BaseModel):  # extra fields allowed: its dict may hold more than its fields
    model_config = ConfigDict(extra="allow", frozen=True)
    id: str


class _Holder(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rows: list[_Aliased] = []
    other: list[_Serialized] = []
    loose: list[_Loose] = []


class _SubAliased(_Aliased):
    more: str = "x"


def test_models_the_fast_path_cannot_read_take_the_serializer() -> None:
    for record in (_Aliased(id="a", title="t"), _Serialized(id="b", when="now"), _Loose.model_validate({"id": "c", "extra_field": 1})):
        assert digest_function(type(record))("x", "y", record.id, record) == _slow("x", "y", record)
    holder = _Holder(rows=[_Aliased(id="a", title="t")], other=[_Serialized(id="b", when="now")],
                     loose=[_Loose.model_validate({"id": "c", "extra_field": 1})])
    assert json_form(holder) == holder.model_dump(mode="json", by_alias=True)
    # A subclass instance in a list of the declared model dumps as the declared model.
    sub = _Holder.model_construct(rows=[_SubAliased(id="s", title="t")], other=[], loose=[])
    assert json_form(sub) == sub.model_dump(mode="json", by_alias=True, warnings=False)


class _Priced(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    price: float = 0.0
    cost: int | float | None = None


def test_an_int_in_a_float_field_hashes_as_the_serializer_writes_it() -> None:
    """A float field can hold an int that skipped validation (a tool's write, `model_construct`): the serializer
    writes it as `3.0`, and the digest must say so too."""
    for record in (_Priced.model_construct(id="p", price=3, cost=2), _Priced(id="q", price=2.5, cost=7),
                   _Priced(id="r").model_copy(update={"price": 0})):
        assert digest_function(_Priced)("x", "y", record.id, record) == _slow("x", "y", record)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d", "e"]), _TEXT), max_size=8))
def test_bulk_load_equals_putting_each_record(rows: list[tuple[str, str]]) -> None:
    """Repeated ids included: the later record replaces the earlier one in place, as `put` does."""
    ids = [i for i, _ in rows]
    records = [Note(id=i, title=t, body=t, updated_at="2026-01-01T00:00:00Z") for i, t in rows]
    loaded, put = Table("notes", "notes", Note), Table("notes", "notes", Note)
    loaded.load(records)
    for record in records:
        put.put(record)
    assert loaded.content_hash == put.content_hash
    assert list(loaded) == list(put) and [loaded.digest_of(i) for i in ids] == [put.digest_of(i) for i in ids]
    assert loaded.select() == put.select() and loaded.select(reverse=True) == put.select(reverse=True)


class _Text(str):
    """A str subclass (as a str enum would be): JSON-mode dumps and orjson may write such values differently."""


def test_values_put_in_without_validation_hash_as_the_serializer_writes_them() -> None:
    note = Note(id="n-1", title="t", tags=["a"])
    odd = [
        note.model_copy(update={"title": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)}),
        note.model_copy(update={"tags": {"b"}}),
        note.model_copy(update={"title": _Text("subclass")}),
        note.model_copy(update={"tags": ("x", "y")}),
    ]
    for record in odd:
        assert _same_digest("notes", "notes", record)
    rows = [odd[0], Note(id="n-2", title="u")]
    bulk, each = Table("notes", "notes", Note), Table("notes", "notes", Note)
    bulk.load(rows)
    for record in rows:
        each.put(record)
    assert bulk.content_hash == each.content_hash


def test_a_spec_holding_a_value_the_fast_path_refuses_keeps_its_id() -> None:
    spec = load_example("incident_rollback")
    people = spec.world.apps.directory.people
    odd = people[0].model_copy(update={"name": datetime(2026, 1, 2, tzinfo=UTC)})
    directory = spec.world.apps.directory.model_copy(update={"people": [odd, *people[1:]]})
    apps = spec.world.apps.model_copy(update={"directory": directory})
    changed = spec.model_copy(update={"world": spec.world.model_copy(update={"apps": apps})})
    assert changed.id == _serialized_id(changed) != spec.id
