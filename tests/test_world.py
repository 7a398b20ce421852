"""The world: canonical serialization, content hash, snapshots, diffs and rewind."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from coworkenv.apps import APPS, WorldApps
from coworkenv.apps.directory import Person
from coworkenv.apps.mail import Message
from coworkenv.examples import load_example
from coworkenv.world import World, WorldSnapshot, diff, parse_time
from coworkenv.world._table import Table

START = parse_time("2026-03-02T09:00:00Z")


def _world(apps: WorldApps | None = None, clock: int = START) -> World:
    return World.from_wire(APPS, apps or WorldApps(), clock, 30, None)


def _example_world() -> World:
    spec = load_example("incident_rollback")
    return World.from_wire(APPS, spec.world.apps, parse_time(spec.world.start), spec.world.tick_s, spec.user)


def _rebuilt(world: World) -> World:
    wire = world.to_wire()
    return World.from_wire(APPS, WorldApps.model_validate(wire["apps"]), parse_time(wire["clock"]), 30, None)


def _get(world: World, app: str, table: str, record_id: str) -> Any:
    record = world.table(app, table).get(record_id)
    assert record is not None, f"{app}.{table}[{record_id}] missing"
    return record


def _person(i: int, name: str = "Ada Lovelace", tz: str = "UTC") -> Person:
    return Person(id=f"u-{i}", name=name, email=f"p{i}@acme.test", team="t-x", role="Engineer", timezone=tz)


names = st.text(alphabet="abcdefghij KLMNOP-é", min_size=1, max_size=12)
people = st.dictionaries(st.integers(0, 40), names, min_size=1, max_size=25)


def test_canonical_serialization_round_trips() -> None:
    world = _example_world()
    again = _rebuilt(world)
    assert again.to_wire() == world.to_wire()
    assert again.content_hash() == world.content_hash()
    rows = world.to_wire()["apps"]["logs"]["lines"]
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)


def test_serialising_some_apps_gives_their_tables_as_the_whole_serialisation_does() -> None:
    """`to_wire(apps_only)` (a Python check scoped to its apps is handed only theirs) is the whole serialisation's
    part: the same clock, the same tables in the same order, the same rows."""
    world = _example_world()
    whole = world.to_wire()
    for chosen in (["logs"], ["services", "logs"], ["mail", "no_such_app"], []):
        part = world.to_wire(chosen)
        assert part["clock"] == whole["clock"]
        assert list(part["apps"]) == [a for a in whole["apps"] if a in chosen]
        assert all(list(part["apps"][a].items()) == list(whole["apps"][a].items()) for a in part["apps"])


def test_hash_is_stable_across_processes() -> None:
    code = (
        "from coworkenv.examples import load_example\n"
        "from coworkenv.apps import APPS\nfrom coworkenv.world import World, parse_time\n"
        "s = load_example('incident_rollback')\n"
        "w = World.from_wire(APPS, s.world.apps, parse_time(s.world.start), s.world.tick_s, s.user)\n"
        "print(w.content_hash())\n"
    )
    # A different hash seed in the child: nothing may depend on Python's randomized str hashing.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "12345", "PATH": ""}).stdout.strip()
    assert out == _example_world().content_hash()


@settings(max_examples=40, deadline=None)
@given(people=people, seed=st.integers(0, 2**16))
def test_hash_does_not_depend_on_insertion_order(people: dict[int, str], seed: int) -> None:
    records = [_person(i, name) for i, name in people.items()]
    shuffled = list(records)
    random.Random(seed).shuffle(shuffled)
    a = _world(WorldApps.model_validate({"directory": {"people": [r.model_dump() for r in records]}}))
    b = _world(WorldApps.model_validate({"directory": {"people": [r.model_dump() for r in shuffled]}}))
    assert a.content_hash() == b.content_hash()
    assert a.to_wire() == b.to_wire()


ops = st.lists(
    st.tuples(st.sampled_from(["put", "delete"]), st.integers(0, 15), names), min_size=1, max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(initial=people, ops=ops)
def test_incremental_hash_equals_a_fresh_build(initial: dict[int, str], ops: list[tuple[str, int, str]]) -> None:
    world = _world(WorldApps.model_validate({"directory": {"people": [_person(i, n).model_dump() for i, n in initial.items()]}}))
    table = world.table("directory", "people")
    for op, i, name in ops:
        if op == "put":
            table.put(_person(i, name))
        else:
            table.delete(f"u-{i}")
    assert world.content_hash() == _rebuilt(world).content_hash()


def test_hash_reflects_content_and_clock() -> None:
    world = _example_world()
    before = world.content_hash()
    table = world.table("services", "services")
    original = _get(world, "services", "services", "svc-payments")
    table.put(original.model_copy(update={"status": "down"}))
    changed = world.content_hash()
    assert changed != before
    table.put(original)
    assert world.content_hash() == before
    world.advance(30)
    assert world.content_hash() != before


def test_snapshot_and_restore() -> None:
    world = _example_world()
    snap = world.snapshot()
    wire, digest = world.to_wire(), world.content_hash()
    world.table("tickets", "tickets").delete("OPS-101")
    world.table("directory", "people").put(_person(99))
    world.advance(600)
    assert world.content_hash() != digest
    world.restore(snap)
    assert world.content_hash() == digest
    assert world.to_wire() == wire
    assert isinstance(snap, WorldSnapshot)


def test_diff_names_added_removed_and_changed_fields() -> None:
    world = _example_world()
    before = world.snapshot()
    services = world.table("services", "services")
    services.put(_get(world, "services", "services", "svc-payments").model_copy(update={"status": "healthy", "config_version": 3}))
    world.table("tickets", "tickets").delete("OPS-101")
    world.table("directory", "people").put(_person(7))
    changes = diff(before, world.snapshot())
    summary = {(c.app, c.table, c.id, c.kind, c.fields) for c in changes}
    assert summary == {
        ("services", "services", "svc-payments", "changed", ("status", "config_version")),
        ("tickets", "tickets", "OPS-101", "removed", ()),
        ("directory", "people", "u-7", "added", ()),
    }
    # The journal-based diff agrees with the snapshot diff.
    assert world.changes() == changes
    assert "svc-payments" in next(c.path for c in changes if c.kind == "changed")


def test_writing_back_the_same_value_is_not_a_change() -> None:
    world = _example_world()
    services = world.table("services", "services")
    services.put(_get(world, "services", "services", "svc-gateway").model_copy())
    assert world.changes() == []


def test_rewind_restores_the_initial_hash_touching_only_written_records(monkeypatch: Any) -> None:
    mails = [
        Message(id=f"msg-{i}", thread_id=f"thr-{i}", folder="inbox", sender="a@acme.test", to=["b@acme.test"],
                subject=f"Invoice {i}", body="Please find the invoice attached.", sent_at="2026-01-01T09:00:00Z")
        for i in range(3000)
    ]
    world = _world(WorldApps.model_validate({"mail": {"messages": [m.model_dump() for m in mails]}}))
    initial = world.content_hash()
    table = world.table("mail", "messages")
    table.put(_get(world, "mail", "messages", "msg-10").model_copy(update={"read": True}))
    table.put(_get(world, "mail", "messages", "msg-10").model_copy(update={"folder": "archive"}))
    table.delete("msg-20")
    table.put(mails[0].model_copy(update={"id": "msg-new"}))
    world.advance(90)
    restored: list[str] = []
    original_restore = Table._restore

    def counting(self: Table[Any], record_id: str, record: Any) -> None:
        restored.append(record_id)
        original_restore(self, record_id, record)

    monkeypatch.setattr(Table, "_restore", counting)
    world.rewind()
    assert world.content_hash() == initial
    assert world.clock == START
    assert sorted(restored) == ["msg-10", "msg-20", "msg-new"]
    assert world.changes() == []


def test_new_ids_continue_the_numbering() -> None:
    world = _example_world()
    assert world.new_id("OPS", "tickets", "tickets") == "OPS-102"
    assert world.new_id("OPS", "tickets", "tickets") == "OPS-103"
    assert world.new_id("log", "logs", "lines") == "log-7"


_ODD_IDS = st.sampled_from(["OPS-", "OPS-x", "OPS--3", "xOPS-9", "OPS-12\n", "a\nOPS-40", "OPS-40\nb", "OPS-\u0665",
                             "OPS-0\u0663", "OPS-7 ", "ops-50", "OPS-\n41", "\nOPS-42\n", "OPS-08"])


@settings(max_examples=80, deadline=None)
@given(ids=st.lists(st.one_of(_ODD_IDS, st.integers(0, 60).map(lambda n: f"OPS-{n}")), max_size=12, unique=True))
def test_new_id_numbering_reads_exactly_the_ids_of_prefix_and_digits(ids: list[str]) -> None:
    """The start state's numbering (its ids searched as one text, an id a line) takes exactly the ids that are the
    prefix, a dash and decimal digits, whatever newlines or look-alikes other ids hold."""
    world = _world(WorldApps.model_validate({"tickets": {"tickets": [{"id": i, "title": "T"} for i in ids]}}))
    numbers = [int(i[4:]) for i in ids if re.fullmatch(r"OPS-(\d+)", i)]
    n = max(numbers, default=0) + 1
    while f"OPS-{n}" in ids:
        n += 1
    assert world.new_id("OPS", "tickets", "tickets") == f"OPS-{n}"


@settings(max_examples=60, deadline=None)
@given(
    initial=st.sets(st.integers(1, 30), max_size=10),
    ops=st.lists(st.tuples(st.sampled_from(["put", "delete", "reset_journal"]), st.integers(1, 40)), max_size=20),
)
@example(initial={3, 7}, ops=[("delete", 7)])  # the highest id of the start state is gone
@example(initial={3, 7}, ops=[("put", 12), ("delete", 12)])
def test_new_ids_after_writes_and_rewinds_match_a_fresh_world(initial: set[int], ops: list[tuple[str, int]]) -> None:
    tickets = [{"id": f"OPS-{i}", "title": f"Ticket {i}"} for i in sorted(initial)]
    world = _world(WorldApps.model_validate({"tickets": {"tickets": tickets}}))
    world.new_id("OPS", "tickets", "tickets")  # numbering learnt from the start state, then forgotten by rewind
    world.rewind()
    table = world.table("tickets", "tickets")
    for op, i in ops:
        if op == "put":
            table.put(table.model(id=f"OPS-{i}", title="New"))
        elif op == "delete":
            table.delete(f"OPS-{i}")
        else:
            world.reset_journal()
    assert world.new_id("OPS", "tickets", "tickets") == _rebuilt(world).new_id("OPS", "tickets", "tickets")
