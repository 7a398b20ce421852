"""`dump_many` (the list tools' batch path) gives exactly `[dump(r, *fields) for r in records]`, for every model."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv.apps._common import dump, dump_many
from coworkenv.apps.directory import Person, Team
from coworkenv.apps.inventory import Item
from coworkenv.tools import RENDERING
from coworkenv.world import Record
from tests.test_world_digest import MODELS, _records


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize(("app", "table", "model"), MODELS, ids=[f"{a}.{t}" for a, t, _ in MODELS])
def test_dump_many_equals_dumping_each(app: str, table: str, model: type[Record], data: Any) -> None:
    records = [model.model_validate(data.draw(_records(model))) for _ in range(data.draw(st.integers(0, 3)))]
    fields = tuple(data.draw(st.lists(st.sampled_from(list(model.model_fields)), unique=True, max_size=4)))
    many = dump_many(records, *fields)
    assert many == [dump(r, *fields) for r in records]
    # the agent is shown the JSON: the keys come in the serializer's order too
    assert orjson.dumps(many) == orjson.dumps([_serialized(r, fields) for r in records])
    for row in many:  # lists are the caller's own: changing them leaves the records as they were
        for value in row.values():
            if isinstance(value, list):
                value.append("changed")
    assert dump_many(records, *fields) == [dump(r, *fields) for r in records]
    # Inside a rendering call (Env.step's), rows are JSON kept per record: the same bytes, the second time too.
    for _ in range(2):
        token = RENDERING.set(True)
        try:
            rendered = dump_many(records, *fields)
        finally:
            RENDERING.reset(token)
        assert orjson.dumps(rendered) == orjson.dumps([_serialized(r, fields) for r in records])


def test_dump_many_takes_records_of_several_models() -> None:
    person = Person(id="u-1", name="A", email="a@x", team="t-1", role="r")
    mixed: list[Record] = [person, Team(id="t-1", name="T"), person]
    assert dump_many(mixed) == [dump(r) for r in mixed]
    assert dump_many(mixed, "id") == [{"id": "u-1"}, {"id": "t-1"}, {"id": "u-1"}]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize(("app", "table", "model"), MODELS, ids=[f"{a}.{t}" for a, t, _ in MODELS])
def test_dump_equals_the_serializer(app: str, table: str, model: type[Record], data: Any) -> None:
    record = model.model_validate(data.draw(_records(model)))
    fields = tuple(data.draw(st.lists(st.sampled_from(list(model.model_fields)), unique=True, max_size=4)))
    assert orjson.dumps(dump(record, *fields)) == orjson.dumps(_serialized(record, fields))
    changed = record.model_copy(update={"id": record.id + "-2"})  # what a tool's write makes
    assert orjson.dumps(dump(changed)) == orjson.dumps(_serialized(changed, ()))


def _serialized(record: Record, fields: tuple[str, ...]) -> dict[str, Any]:
    """The serializer's object, less the model's `shown_when_set` fields that are None (shown only when set)."""
    full = record.model_dump(mode="json")
    picked = {k: full[k] for k in fields} if fields else full
    return {k: v for k, v in picked.items() if v is not None or k not in type(record).shown_when_set}


@pytest.mark.parametrize("cost", [1.5, 2, None, float("nan"), float("inf"), -float("inf")])
def test_float_fields_dump_as_the_serializer_writes_them(cost: float | None) -> None:
    item = Item(id="SKU1@loc-1", sku="SKU1", name="bolt", location="loc-1", unit_cost=cost)
    expected = item.model_dump(mode="json")
    assert orjson.dumps(dump(item)) == orjson.dumps(expected)
    assert orjson.dumps(dump_many([item, item], "id", "unit_cost")) == orjson.dumps(
        [{"id": item.id, "unit_cost": expected["unit_cost"]}] * 2)
    plain = Item(id="SKU2@loc-1", sku="SKU2", name="nut", location="loc-1", unit_cost=0.0)
    assert orjson.dumps(dump_many([plain, item])) == orjson.dumps([plain.model_dump(mode="json"), expected])
