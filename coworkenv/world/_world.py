"""The simulated workplace: app tables, a world clock, hashing, snapshots and diffs."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from coworkenv.world._app import AppDef, AppState, Record
from coworkenv.world._bulk import gc_paused
from coworkenv.world._table import Table
from coworkenv.world._time import format_time

T = TypeVar("T")


def _hash_chunk(table: Table[Any]) -> bytes:
    """A table's 16-byte hash as the world hash reads it: b"" for an empty table (hash 0), which adds nothing."""
    value = table.content_hash
    return value.to_bytes(16, "big") if value else b""


@dataclass(frozen=True, order=True)
class Change:
    """One record that differs between two states: `fields` names the changed fields."""

    app: str
    table: str
    id: str
    kind: Literal["added", "removed", "changed"]
    fields: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        suffix = f" ({', '.join(self.fields)})" if self.fields else ""
        return f"{self.app}.{self.table}[{self.id}]{suffix}"


@dataclass(frozen=True)
class WorldSnapshot:
    """An immutable copy of a world: records are shared (they are frozen), tables are copied."""

    clock: int
    counters: Mapping[str, int]
    rows: Mapping[tuple[str, str], Mapping[str, Record]]


@dataclass
class _Journal:
    clock: int
    counters: dict[str, int]
    # First value seen for every record written since the journal started (None: did not exist).
    originals: dict[tuple[str, str, str], Record | None] = field(default_factory=dict)
    # The same, per table, so a predicate over one table reads only its touched records.
    by_table: dict[tuple[str, str], dict[str, Record | None]] = field(default_factory=dict)
    # Values derived from the state at the journal's start (see World.journal_memo).
    memo: dict[Hashable, tuple[object, Any]] = field(default_factory=dict)


class World:
    """Typed state of a coworker's workspace.

    Every write goes through `Table.put`/`Table.delete`, which keeps per-table additive hashes and
    journals the original value, so hashing and diffing cost O(records touched), not O(world).
    """

    def __init__(self, apps: Mapping[str, AppDef], clock: int, tick_s: int = 30, user: str | None = None) -> None:
        self.apps = dict(apps)
        self.clock = clock
        self.tick_s = tick_s
        self.user = user  # directory id of the person the agent works for
        self._counters: dict[str, int] = {}
        self._journal = _Journal(clock, {})
        # Bumped on every record write; with the clock it keys the cached content hash.
        self._mutations = 0
        self._hash_cache: tuple[int, int, str] | None = None
        # The tables' hash chunks (`_hash_chunk`) in `_hash_order`, as of `_mutations`, and those chunks joined (what
        # the world hash reads); a write replaces the chunks of the tables written since, and joins them again.
        self._tables_bytes: tuple[int, list[bytes], bytes] | None = None
        self._dirty: set[Table[Any]] = set()
        self._base_world: World | None = None
        self._iso: tuple[int, str] = (clock, format_time(clock))
        self._tables: dict[tuple[str, str], Table[Any]] = {}
        for app in self.apps.values():
            for name, model in app.tables.items():
                self._tables[(app.name, name)] = Table(
                    app.name, name, model, self._record_change, app.indexes.get(name)
                )
        self._order_tables()

    def _order_tables(self) -> None:
        self._hash_order = [self._tables[key] for key in sorted(self._tables)]
        self._slot = {id(table): k for k, table in enumerate(self._hash_order)}

    # -- construction & serialization ------------------------------------------------------
    @classmethod
    def from_wire(
        cls, apps: Mapping[str, AppDef], state: BaseModel, clock: int, tick_s: int, user: str | None = None,
        table_hashes: Mapping[tuple[str, str], int] | None = None,
    ) -> World:
        """Build a world from the wire state (an object with one `AppState` field per app).

        `table_hashes`: each table's content hash, known already for exactly these records (a sealed spec's, see
        `coworkenv.spec_seal`); the records are then digested only when a write or a read needs one.
        """
        world = cls(apps, clock, tick_s, user)
        known = table_hashes or {}
        with gc_paused():
            for app_name in apps:
                app_state: AppState = getattr(state, app_name)
                for table_name in apps[app_name].tables:
                    world._tables[(app_name, table_name)].load(getattr(app_state, table_name),
                                                               known.get((app_name, table_name)))
        world._mutations += 1
        world.reset_journal()
        return world

    def fork(self) -> World:
        """A world equal to this one that shares every table's storage until it writes that table (copy-on-write).

        This world must not be written afterwards: it is the base of its forks (e.g. one per spec, shared by every
        Env built from it). A fork holds only the tables it has written (and indexes of those, copied from the
        base's, which are built once for every fork).
        """
        self.content_hash()  # computed once on the base; forks start from its table bytes
        assert self._tables_bytes is not None
        twin = World.__new__(World)
        twin.apps, twin.clock, twin.tick_s, twin.user = self.apps, self.clock, self.tick_s, self.user
        twin._counters = dict(self._counters)
        twin._journal = _Journal(self.clock, dict(self._counters))
        if not self._journal.originals:  # the base's journal starts at its current state: what it derived holds
            twin._journal.memo = self._journal.memo
        twin._mutations, twin._hash_cache = self._mutations, self._hash_cache
        twin._tables_bytes = (self._mutations, list(self._tables_bytes[1]), self._tables_bytes[2])
        twin._dirty, twin._iso = set(), self._iso
        twin._base_world = self  # the base lives as long as a fork does
        twin._tables = {key: table.fork(twin._record_change) for key, table in self._tables.items()}
        twin._order_tables()
        return twin

    def to_wire(self, apps_only: Collection[str] | None = None) -> dict[str, Any]:
        """Canonical, JSON-ready serialization: records sorted by id within each table. `apps_only`: only these
        apps' tables (the same rows as in the whole serialization; a Python check scoped to its `apps` reads no
        other, and the others' records were most of what each of its runs serialised)."""
        apps: dict[str, Any] = {}
        for (app, name), table in self._tables.items():
            if apps_only is not None and app not in apps_only:
                continue
            rows = [table.get(i).model_dump(mode="json") for i in sorted(table.ids())]  # type: ignore[union-attr]
            apps.setdefault(app, {})[name] = rows
        return {"clock": format_time(self.clock), "apps": apps}

    # -- access --------------------------------------------------------------------------------
    def table(self, app: str, name: str) -> Table[Any]:
        try:
            return self._tables[(app, name)]
        except KeyError:
            raise KeyError(f"no table {app}.{name}; known: {sorted(f'{a}.{t}' for a, t in self._tables)}") from None

    def tables(self) -> Iterator[Table[Any]]:
        return iter(self._tables.values())

    @property
    def now_iso(self) -> str:
        iso = self._iso
        if iso[0] != self.clock:
            iso = self._iso = (self.clock, format_time(self.clock))
        return iso[1]

    def advance(self, seconds: int) -> None:
        self.clock += max(0, seconds)

    def new_id(self, prefix: str, app: str, table: str) -> str:
        """A deterministic fresh id `prefix-N` not yet used in `app.table`."""
        rows = self._tables[(app, table)]
        if prefix not in self._counters:
            # Continue the numbering already in use (OPS-101 -> OPS-102).
            self._counters[prefix] = self._highest_number(prefix, app, table)
        n = self._counters[prefix]
        while True:
            n += 1
            candidate = f"{prefix}-{n}"
            if candidate not in rows:
                self._counters[prefix] = n
                return candidate

    def _highest_number(self, prefix: str, app: str, table: str) -> int:
        """Highest N of the ids `prefix-N` now in the table, in O(records written since the journal started)."""
        rows = self._tables[(app, table)]
        touched = self.touched(app, table)

        def at_start() -> list[tuple[int, str]]:  # numbered ids at the journal's start, highest first
            # `prefix-` and decimal digits (those `_number` reads); a table can be large: its ids are searched as
            # one text, an id a line, by one C-level regex pass that jumps from one `prefix-` to the next (20k ids:
            # ~2-3x less than a fullmatch call per id). A match ends at a line's end but may start inside a line
            # (`xOPS-9`, an id holding a newline): it counts only when it is an id of the table.
            head = re.escape(prefix + "-") + r"(\d+)"
            numbered = re.compile(head).fullmatch
            if "\n" in prefix:
                found = {m.string: int(m[1]) for m in map(numbered, rows.ids()) if m is not None}
            else:
                lines = re.finditer(f"({head})(?![^\n])", "\n".join(rows.ids()))
                found = {m[1]: int(m[2]) for m in lines if m[1] in rows}
            now = [(n, i) for i, n in found.items() if i not in touched]
            now += [(int(m[1]), i) for i, old in touched.items() if old is not None and (m := numbered(i)) is not None]
            return sorted(now, reverse=True)

        # The start state is scanned once per journal (and kept across rewinds); then only written ids are read.
        start = self.journal_memo(("numbered-ids", prefix, app, table), at_start)
        best = next((n for n, i in start if i not in touched or i in rows), 0)
        added = (n for i in touched if i in rows and (n := _number(prefix, i)) is not None)
        return max(best, max(added, default=0))

    # -- hashing ---------------------------------------------------------------------------------
    def content_hash(self) -> str:
        """Stable content hash of the whole state (clock included), from the per-table hashes."""
        cached = self._hash_cache
        if cached is not None and cached[0] == self.clock and cached[1] == self._mutations:
            return cached[2]
        tables = self._tables_bytes
        if tables is None:
            chunks = [_hash_chunk(table) for table in self._hash_order]
            tables = self._tables_bytes = (self._mutations, chunks, b"".join(chunks))
            self._dirty.clear()
        elif tables[0] != self._mutations:
            chunks = tables[1]
            for table in self._dirty:  # only the tables written since the chunks were last brought up to date
                chunks[self._slot[id(table)]] = _hash_chunk(table)
            self._dirty.clear()
            tables = self._tables_bytes = (self._mutations, chunks, b"".join(chunks))
        # Same digest as hashing the clock and then each non-empty table's hash in turn (sorted by address); the
        # table part is reused until a write. An empty table (hash 0) adds nothing, so a world hash does not change
        # when an app gains a table or coworkenv gains an app.
        digest = hashlib.blake2b(self.clock.to_bytes(8, "big", signed=True) + tables[2], digest_size=16).hexdigest()
        self._hash_cache = (self.clock, self._mutations, digest)
        return digest

    # -- snapshots & journal -----------------------------------------------------------------------
    def snapshot(self) -> WorldSnapshot:
        rows = {key: {r.id: r for r in table} for key, table in self._tables.items()}
        return WorldSnapshot(self.clock, dict(self._counters), rows)

    def restore(self, snap: WorldSnapshot) -> None:
        """Make this world equal to `snap` (writes are journaled like any other)."""
        self.clock = snap.clock
        self._counters = dict(snap.counters)
        for key, table in self._tables.items():
            wanted = snap.rows[key]
            for record_id in [i for i in table.ids() if i not in wanted]:
                table.delete(record_id)
            for record_id, record in wanted.items():
                if table.get(record_id) is not record:
                    table.put(record)

    def touched(self, app: str, table: str) -> Mapping[str, Record | None]:
        """Records of `app.table` written since the journal started, with their value then (None: absent)."""
        return self._journal.by_table.get((app, table), {})

    def journal_memo(self, key: Hashable, compute: Callable[[], T], owner: object = None) -> T:
        """A value about the state at the journal's start, computed once per journal start state.

        `owner`, when given, is the object the key was derived from (e.g. `id(rule)`): it is held with the value
        so the id cannot be reused by another object while the entry lives.
        """
        entry = self._journal.memo.get(key)
        if entry is None or entry[0] is not owner:
            entry = (owner, compute())
            self._journal.memo[key] = entry
        return entry[1]  # type: ignore[no-any-return]

    def reset_journal(self) -> None:
        """Start tracking changes from the current state."""
        self._journal = _Journal(self.clock, dict(self._counters))

    def rewind(self) -> None:
        """Return to the state at the journal's start (O(records touched)); the journal starts again.

        A fork keeps the tables it owns (with their indexes) for the next episode, so rewinding stays O(touched).
        """
        for (app, name, record_id), original in self._journal.originals.items():
            table = self._tables[(app, name)]
            table._restore(record_id, original)
            self._dirty.add(table)
        self._mutations += 1  # _restore bypasses the journal hook that counts writes
        self.clock = self._journal.clock
        self._counters = dict(self._journal.counters)
        memo = self._journal.memo
        self._journal = _Journal(self.clock, dict(self._counters))
        self._journal.memo = memo  # the state is the journal's start again: what was derived from it still holds

    def changes(self) -> list[Change]:
        """Structural diff between the journal's start and now, touching only written records."""
        out: list[Change] = []
        for (app, name, record_id), original in self._journal.originals.items():
            current = self._tables[(app, name)].get(record_id)
            change = _compare(app, name, record_id, original, current)
            if change is not None:
                out.append(change)
        return sorted(out)

    def _record_change(self, table: Table[Any], record_id: str, previous: Record | None) -> None:
        self._mutations += 1
        self._dirty.add(table)
        key = (table.app, table.name, record_id)
        if key not in self._journal.originals:
            self._journal.originals[key] = previous
            self._journal.by_table.setdefault((table.app, table.name), {})[record_id] = previous


def _number(prefix: str, record_id: str) -> int | None:
    """N of an id `prefix-N`, else None."""
    if not record_id.startswith(prefix + "-"):
        return None
    suffix = record_id[len(prefix) + 1:]
    return int(suffix) if suffix.isdigit() else None


def _compare(app: str, table: str, record_id: str, old: Record | None, new: Record | None) -> Change | None:
    if old is None and new is None:
        return None
    if old is None:
        return Change(app, table, record_id, "added")
    if new is None:
        return Change(app, table, record_id, "removed")
    if old is new or old == new:
        return None
    a, b = old.model_dump(), new.model_dump()
    return Change(app, table, record_id, "changed", tuple(k for k in a if a[k] != b.get(k)))


def diff(before: WorldSnapshot, after: WorldSnapshot) -> list[Change]:
    """Structural diff between two snapshots (records added, removed, or changed with field names)."""
    out: list[Change] = []
    for (app, name), old_rows in before.rows.items():
        new_rows = after.rows[(app, name)]
        for record_id in old_rows.keys() | new_rows.keys():
            old, new = old_rows.get(record_id), new_rows.get(record_id)
            if old is new:
                continue
            change = _compare(app, name, record_id, old, new)
            if change is not None:
                out.append(change)
    return sorted(out)
