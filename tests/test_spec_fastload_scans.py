"""A cold world's first query of a key or order index is answered by a scan: the same answer the built index gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv.apps import APPS
from coworkenv.examples import example_names, load_example
from coworkenv.synth import generate_spec, load_taxonomy
from coworkenv.world import Key, Order, Table, World, parse_time
from coworkenv.world._index import KeyIndex
from coworkenv.world._query import Selection, run_select, scan_select
from coworkenv.world._table import KeyScan

ROOT = Path(__file__).resolve().parents[1]
TAXONOMY = load_taxonomy(ROOT / "taxonomy")
SPECS = [load_example(n) for n in example_names()] + [generate_spec(TAXONOMY[c], 5) for c in
                                                      sorted(TAXONOMY.capabilities)[:8]]
WORLDS = [World.from_wire(APPS, s.world.apps, parse_time(s.world.start), s.world.tick_s, s.user) for s in SPECS]
TABLES: list[Table[Any]] = [t for w in WORLDS for t in w.tables() if len(t) and t._index_specs]


def _ids(records: list[Any]) -> list[str]:
    return [r.id for r in records]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_first_query_by_scan_equals_the_built_indexes_answer(data: st.DataObject) -> None:
    table = data.draw(st.sampled_from(TABLES))
    specs = table._index_specs
    keys = [n for n, s in specs.items() if isinstance(s, Key)]
    orders = [n for n, s in specs.items() if isinstance(s, Order)]
    sets = []
    for name in data.draw(st.lists(st.sampled_from(keys), max_size=2, unique=True)) if keys else []:
        spec = specs[name]
        assert isinstance(spec, Key)
        values = sorted({v for r in table for v in (spec.key(r) if spec.multi else (spec.key(r),))}, key=repr)
        value = data.draw(st.sampled_from([*values, "no-such-value"]))
        scanned = KeyScan(table, name).ids(value)
        assert scanned == table.key(name).ids(value)  # a second `key` call: the index itself
        sets.append(scanned)
    if not orders:
        return
    order = data.draw(st.sampled_from(orders))
    spec = specs[order]
    assert isinstance(spec, Order)
    points = sorted({spec.key(r) for r in table}, key=repr)
    between = None
    if data.draw(st.booleans()) and points and len({type(p) for p in points}) == 1:
        lo, hi = data.draw(st.sampled_from([None, *points])), data.draw(st.sampled_from([None, *points]))
        between = (lo, hi)
    ids = [r.id for r in table]
    drop = set(data.draw(st.lists(st.sampled_from(ids), max_size=3)))
    q = Selection(sets=[*sets, None], where=(lambda r: r.id not in drop) if drop else None,
                  reverse=data.draw(st.booleans()), limit=data.draw(st.sampled_from([None, 0, 1, 2, 5, 1000])),
                  last=data.draw(st.booleans()), between=between)
    assert _ids(scan_select(table._rows, spec.key, q)) == _ids(run_select(table, table.order(order), q))


def test_a_key_scan_gives_the_ids_of_the_key_index_for_every_value() -> None:
    checked = 0
    for table in TABLES:
        for name, spec in table._index_specs.items():
            if isinstance(spec, Key):
                index = table._index(name, KeyIndex)
                assert isinstance(index, KeyIndex)
                for value in [*index.values(), "no-such-value"]:
                    assert KeyScan(table, name).ids(value) == index.ids(value), (table.app, table.name, name, value)
                    checked += 1
    assert checked > 100


def test_the_first_query_scans_and_the_second_builds_the_index_for_every_fork() -> None:
    world = WORLDS[0]
    table = next(t for t in world.tables() if any(isinstance(s, Key) for s in t._index_specs.values()))
    name = next(n for n, s in table._index_specs.items() if isinstance(s, Key))
    base = Table(table.app, table.name, table.model, None, table._index_specs)
    base.load(list(table))
    a, b = base.fork(), base.fork()
    first = a.key(name)
    assert isinstance(first, KeyScan) and name not in base._indexes
    second = b.key(name)  # counted across the forks of the base
    assert not isinstance(second, KeyScan) and name in base._indexes


def test_a_key_asked_for_many_values_scans_once_then_builds_its_index() -> None:
    table = next(t for t in TABLES if any(isinstance(s, Key) and not s.multi for s in t._index_specs.values()))
    name = next(n for n, s in table._index_specs.items() if isinstance(s, Key) and not s.multi)
    fresh = Table(table.app, table.name, table.model, None, table._index_specs)
    fresh.load(list(table))
    index = table._index(name, KeyIndex)
    assert isinstance(index, KeyIndex)
    values = list(index.values())
    lookup = fresh.key(name)  # e.g. a tool counting the open tasks of every list
    assert isinstance(lookup, KeyScan)
    assert lookup.ids(values[0]) == index.ids(values[0]) and name not in fresh._indexes
    assert [lookup.ids(v) for v in values] == [index.ids(v) for v in values] and name in fresh._indexes
