"""Every query plan (walk, sort of candidates, heap of a few candidates) gives exactly the filter-then-sort result."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv.apps import APPS
from coworkenv.apps.notes import Note
from coworkenv.world import Derived, Key, Table
from coworkenv.world import _query as query
from coworkenv.world._index import DerivedIndex, KeyIndex
from coworkenv.world._query import IdSet, Selection, _sorted_candidates, _walk

TAGS = ["a", "b", "c"]
_notes = st.lists(st.tuples(st.sampled_from(TAGS), st.integers(0, 5), st.booleans()), max_size=60)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(notes=_notes, tag=st.sampled_from([None, *TAGS]), long_titles=st.booleans(), ordered=st.booleans(),
       reverse=st.booleans(), last=st.booleans(), limit=st.one_of(st.none(), st.integers(0, 3), st.integers(0, 45)))
def test_select_equals_filtering_and_sorting_every_record(
    notes: list[tuple[str, int, bool]], tag: str | None, long_titles: bool, ordered: bool, reverse: bool,
    last: bool, limit: int | None,
) -> None:
    table = _notes_table(notes)
    table.delete("n-03")  # insertion order with a gap
    where = (lambda n: len(n.title) > 1) if long_titles else None
    sets = [table.key("tag").ids(tag) if tag is not None else None]
    got = table.select("updated" if ordered else None, sets=sets, where=where, reverse=reverse, limit=limit,
                       last=last)
    rows = [n for n in table if (tag is None or tag in n.tags) and (where is None or where(n))]
    assert [n.id for n in got] == _expected(rows, ordered, reverse, last, limit)


def _notes_table(notes: list[tuple[str, int, bool]]) -> Table[Note]:
    table: Table[Note] = Table("notes", "notes", Note, None, APPS["notes"].indexes["notes"])
    for k, (t, day, long) in enumerate(notes):
        table.put(Note(id=f"n-{k:02d}", title="long title" if long else "t", tags=[t], updated_at=f"2026-01-0{day}"))
    return table


def _expected(rows: list[Note], ordered: bool, reverse: bool, last: bool, limit: int | None) -> list[str]:
    """The ids a query should give, by filtering (done by the caller) and sorting every record."""
    if ordered:
        rows = sorted(rows, key=lambda n: (n.updated_at, n.id), reverse=reverse)
    elif reverse:
        rows = rows[::-1]
    if limit is not None:
        rows = [] if limit == 0 else rows[-limit:] if last else rows[:limit]
    return [n.id for n in rows]


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.lists(st.sampled_from(TAGS), max_size=3)),
                     max_size=12))
def test_bulk_built_indexes_equal_indexes_built_one_record_at_a_time(rows: list[tuple[str, list[str]]]) -> None:
    items = [(f"n-{k}", Note(id=f"n-{k}", title=title, tags=tags)) for k, (title, tags) in enumerate(rows)]
    for spec in (Key(lambda n: n.tags, multi=True), Key(lambda n: n.title), Derived(lambda n: len(n.tags))):
        bulk, each = spec.build(), spec.build()
        bulk.add_all(items)
        for record_id, record in items:
            each.add(record_id, record)
        if isinstance(bulk, KeyIndex) and isinstance(each, KeyIndex):
            assert {v: bulk.ids(v) for v in bulk.values()} == {v: each.ids(v) for v in each.values()}
            copy = bulk.copy()  # a copy's bulk add leaves the original's sets as they were
            copy.add_all([("x", Note(id="x", title="a", tags=["a"]))])  # key "a" by title and by tag
            assert "x" in copy.ids("a") and "x" not in bulk.ids("a")
        else:
            assert isinstance(bulk, DerivedIndex) and isinstance(each, DerivedIndex)
            assert all(bulk[i] == each[i] for i, _ in items) and bulk._values == each._values


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(notes=_notes, tag=st.sampled_from([None, *TAGS]), long_titles=st.booleans(), ordered=st.booleans(),
       reverse=st.booleans(), last=st.booleans(), limit=st.one_of(st.none(), st.integers(0, 3), st.integers(0, 45)))
def test_each_plan_alone_equals_filtering_and_sorting(
    notes: list[tuple[str, int, bool]], tag: str | None, long_titles: bool, ordered: bool, reverse: bool,
    last: bool, limit: int | None,
) -> None:
    """The planner picks one plan per query; here every plan answers every query."""
    _check_every_plan(notes, tag, long_titles, ordered, reverse, last, limit)


@pytest.mark.parametrize("limit", [1, 2, 3])
@pytest.mark.parametrize(("reverse", "last"), [(False, False), (False, True), (True, False), (True, True)])
def test_a_few_of_many_candidates_come_in_plan_order(
    reverse: bool, last: bool, limit: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over 16x the limit in candidates: the sort plan ranks them with a heap; ties on the key go by id."""
    monkeypatch.setattr(query, "_PARTIAL_SORT_MIN", 0)  # the heap's size floor, lowered to reach it with 70 records
    notes = [(TAGS[k % 3], k % 4, k % 5 == 0) for k in range(70)]
    for tag, long_titles in ((None, False), ("a", False), (None, True)):
        _check_every_plan(notes, tag, long_titles, True, reverse, last, limit)
        _check_every_plan(notes, tag, long_titles, False, reverse, last, limit)


def _check_every_plan(
    notes: list[tuple[str, int, bool]], tag: str | None, long_titles: bool, ordered: bool, reverse: bool,
    last: bool, limit: int | None,
) -> None:
    table = _notes_table(notes)
    where = (lambda n: len(n.title) > 1) if long_titles else None
    wanted: list[IdSet] = [set(table.key("tag").ids(tag)) if tag is not None else set(table.ids())]
    q = Selection(sets=list(wanted), where=where, reverse=reverse, limit=limit, last=last)
    index = table.order("updated") if ordered else None
    rows = [n for n in table if n.id in wanted[0] and (where is None or where(n))]
    expected = _expected(rows, ordered, reverse, last, limit)
    assert [n.id for n in _walk(table._rows, index, wanted, where, q)] == expected
    assert [n.id for n in _sorted_candidates(table._rows, table, index, wanted, where, q)] == expected
    if index is not None:  # again once the order's ranks are built (a query sorting the whole table builds them)
        assert index.ranks(len(index)) is not None
        assert [n.id for n in _sorted_candidates(table._rows, table, index, wanted, where, q)] == expected


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(notes=_notes, titles=st.frozensets(st.sampled_from(["t", "long title", "other"])),
       tag=st.sampled_from([None, *TAGS]), ordered=st.booleans(), reverse=st.booleans(), last=st.booleans(),
       limit=st.one_of(st.none(), st.integers(0, 3), st.integers(0, 45)))
def test_field_in_equals_filtering_the_field_in_every_plan(
    notes: list[tuple[str, int, bool]], titles: frozenset[str], tag: str | None, ordered: bool, reverse: bool,
    last: bool, limit: int | None,
) -> None:
    """`field_in` keeps the records whose field is one of the values: in the cold table's scan, the planner's
    choice once indexed, and each plan alone."""
    table = _notes_table(notes)
    field_in = {"title": titles}
    rows = [n for n in table if n.title in titles and (tag is None or tag in n.tags)]
    expected = _expected(rows, ordered, reverse, last, limit)
    for _ in range(2):  # the first query of a cold table scans; the second uses (and builds) the indexes
        sets = [table.key("tag").ids(tag) if tag is not None else None]
        got = table.select("updated" if ordered else None, sets=sets, field_in=field_in, reverse=reverse,
                           limit=limit, last=last)
        assert [n.id for n in got] == expected
    wanted: list[IdSet] = [set(table.key("tag").ids(tag)) if tag is not None else set(table.ids())]
    q = Selection(sets=list(wanted), reverse=reverse, limit=limit, last=last, field_in=field_in)
    index = table.order("updated") if ordered else None
    assert [n.id for n in _walk(table._rows, index, wanted, None, q)] == expected
    assert [n.id for n in _sorted_candidates(table._rows, table, index, wanted, None, q)] == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(notes=_notes, moves=st.lists(st.tuples(st.integers(0, 59), st.integers(0, 5)), max_size=6),
       reverse=st.booleans(), limit=st.one_of(st.none(), st.integers(1, 45)))
def test_an_orders_ranks_follow_writes(
    notes: list[tuple[str, int, bool]], moves: list[tuple[int, int]], reverse: bool, limit: int | None,
) -> None:
    """Ranks built before a write (moved, added or deleted records) are not used after it: the sort stays exact."""
    table = _notes_table(notes)
    index = table.order("updated")
    for k, day in moves:
        assert index.ranks(len(index)) is not None or not notes
        note_id = f"n-{k:02d}"
        if k % 3 == 0:
            table.delete(note_id)
        else:
            table.put(Note(id=note_id, title="t", tags=["a"], updated_at=f"2026-01-0{day}"))
        wanted: list[IdSet] = [set(table.ids())]
        q = Selection(sets=list(wanted), reverse=reverse, limit=limit)
        expected = _expected(list(table), True, reverse, False, limit)
        assert [n.id for n in _sorted_candidates(table._rows, table, index, wanted, None, q)] == expected
