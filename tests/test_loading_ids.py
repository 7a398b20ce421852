"""Reference checks read a table's ids only when a reference names it: the same ids as reading every table."""

from __future__ import annotations

import json

import pytest

from coworkenv import load_spec
from coworkenv.apps import APPS
from coworkenv.examples import example_names, load_example
from coworkenv.loading import SpecError, _References


def test_lazily_read_ids_equal_every_tables_ids_with_created_records() -> None:
    for name in example_names():
        spec = load_example(name)
        refs = _References(spec)
        created = {(e.app, e.table, str(e.record["id"])) for e in refs._effects()
                   if getattr(e, "record", None) is not None and "id" in e.record}
        for app, definition in APPS.items():
            for table in definition.tables:
                rows = {r.id for r in getattr(getattr(spec.world.apps, app), table)}
                assert refs.ids(app, table) == rows | {i for a, t, i in created if (a, t) == (app, table)}
        assert refs.ids("nope", "nothing") == set()


def test_a_reference_to_a_record_a_turn_creates_loads_and_a_missing_one_does_not() -> None:
    raw = json.loads(load_example("incident_rollback").to_json())
    raw["turns"][0]["changes"] = [{"kind": "put_record", "app": "notes", "table": "notes",
                                   "record": {"id": "note-made", "title": "made by the turn"}}]
    raw["checks"].append({"id": "made", "rule": {"kind": "field", "target": {
        "app": "notes", "table": "notes", "id": "note-made", "field": "title"}, "op": "equals", "value": "x"}})
    load_spec(raw)
    raw["checks"][-1]["rule"]["target"]["id"] = "note-missing"
    with pytest.raises(SpecError) as failed:
        load_spec(raw)
    assert any(i.path.endswith("target.id") and "note-missing" in i.message for i in failed.value.issues)
