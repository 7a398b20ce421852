"""A table of typed records with an incrementally maintained content hash."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping
from functools import partial
from itertools import compress
from operator import attrgetter, eq
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from coworkenv.world._bulk import gc_paused
from coworkenv.world._digest import digest_function, digests_of
from coworkenv.world._hashing import combine
from coworkenv.world._index import (
    DerivedIndex,
    IndexSpec,
    Key,
    KeyIndex,
    LiveIndex,
    Order,
    OrderIndex,
    WordIndex,
    Words,
)
from coworkenv.world._query import IdSet, Selection, run_select, scan_select

R = TypeVar("R", bound=BaseModel)


class Table(Generic[R]):
    """Records of one type keyed by id.

    Records are frozen pydantic models: writers replace a record instead of mutating it, which lets
    snapshots share records and keeps the per-record digest cache valid. Secondary indexes (see `_index`) follow
    every write, so snapshots, restores and rewinds (which write through `put`/`delete`) keep them: a write notes
    the record id (with the record the indexes hold for it), and the next read of any index brings them all up to
    date first (`_sync`). A table written more often than searched (a log stream) thus pays no index work per line,
    and a line written and rewound before any search pays none at all.
    """

    __slots__ = (
        "_base", "_digests", "_hash", "_index_specs", "_indexes", "_on_change", "_owned", "_rows", "_scanned", "_seq",
        "_seq_next", "_unindexed", "app", "model", "name",
    )

    def __init__(
        self, app: str, name: str, model: type[R], on_change: Any = None, indexes: Mapping[str, IndexSpec] | None = None,
    ) -> None:
        self.app = app
        self.name = name
        self.model = model
        self._rows: dict[str, R] = {}
        self._digests: dict[str, int] = {}
        self._hash = 0
        # Indexes are built on first use (from every record), then kept on each write: a table no tool searches
        # costs nothing to build, write or hold.
        self._index_specs: dict[str, IndexSpec] = dict(indexes or {})
        self._indexes: dict[str, LiveIndex] = {}
        # Ids written since the indexes were last brought up to date, each with the record the indexes hold for it
        # (None: absent from them). Always empty while the table reads a base's storage (a write owns it first).
        self._unindexed: dict[str, R | None] = {}
        # The first query of a word, key or order index is answered by a scan (a one-off search in a fresh env,
        # e.g. an evaluation from a stored spec, pays no build of an index over every record); the next builds it.
        self._scanned: set[str] = set()
        # Insertion order of the ids (the order iterating the table gives), for tools that list in that order.
        # None until first needed (`insertion_numbers`): the ids' order in `_rows` is the same order.
        self._seq: dict[str, int] | None = {}
        self._seq_next = 0
        # World's change journal: called with (table, id, previous record or None) before a write.
        self._on_change = on_change
        # Copy-on-write (see `fork`): the table whose storage this one reads until its first write, if any.
        self._base: Table[R] | None = None
        self._owned = True

    # -- copy-on-write -------------------------------------------------------------------------
    def fork(self, on_change: Any = None) -> Table[R]:
        """A table equal to this one that shares its records, digests and indexes until its first write.

        This table must not be written afterwards (it is the base of its forks). Indexes a fork builds before
        its first write are built into the shared storage, so every fork of the base gets them.
        """
        twin: Table[R] = Table(self.app, self.name, self.model, on_change, self._index_specs)
        twin._base = self
        twin._scanned = self._scanned  # counted across the forks: the second query of any builds
        twin._share()
        return twin

    def _share(self) -> None:
        """Read the base's storage again (dropping this table's own copy)."""
        base = self._base
        assert base is not None
        self._rows, self._digests, self._hash = base._rows, base._digests, base._hash
        self._seq, self._seq_next, self._indexes = base._seq, base._seq_next, base._indexes
        self._owned = False

    def _own(self) -> None:
        """Copy the shared storage before the first write (indexes copy their sets lazily, see WordIndex.copy)."""
        self._rows, self._digests = dict(self._rows), dict(self._digests)
        self._seq = None if self._seq is None else dict(self._seq)
        self._indexes = {name: self._followed(index.copy()) for name, index in self._indexes.items()}
        self._owned = True

    @property
    def shared(self) -> bool:
        """True while this table reads its base's storage (it has not been written since the fork or a rewind)."""
        return not self._owned

    # -- reading ------------------------------------------------------------------------------
    def get(self, record_id: str) -> R | None:
        return self._rows.get(record_id)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[R]:
        return iter(self._rows.values())

    def ids(self) -> Iterator[str]:
        return iter(self._rows)

    @property
    def content_hash(self) -> int:
        return self._hash

    def digest_of(self, record_id: str) -> int | None:
        """The record's digest (None: no such record); computed on first read when the table was loaded with a
        known hash (see `load`)."""
        digest = self._digests.get(record_id)
        if digest is None:
            record = self._rows.get(record_id)
            if record is None:
                return None
            digest = self._digests[record_id] = digest_function(type(record))(self.app, self.name, record_id, record)
        return digest

    def insertion_numbers(self) -> dict[str, int]:
        """Each id's insertion number (increasing in the order iterating the table gives). Do not mutate it."""
        if self._seq is None:
            self._seq = dict(zip(self._rows, range(len(self._rows)), strict=True))
            self._seq_next = len(self._rows)
        return self._seq

    # -- writing ------------------------------------------------------------------------------
    def put(self, record: R) -> None:
        """Insert or replace a record (its id is `record.id`)."""
        record_id: str = record.id  # type: ignore[attr-defined]
        if not self._owned:
            self._own()
        old = self._rows.get(record_id)
        if self._on_change is not None:
            self._on_change(self, record_id, old)
        digest = digest_function(type(record))(self.app, self.name, record_id, record)
        self._hash = combine(self._hash, add=digest, remove=0 if old is None else self.digest_of(record_id) or 0)
        self._rows[record_id] = record
        self._digests[record_id] = digest
        if old is None and self._seq is not None:
            self._seq[record_id] = self._seq_next
            self._seq_next += 1
        if self._indexes and record_id not in self._unindexed:
            self._unindexed[record_id] = old  # the indexes follow at their next read (`_sync`)

    def load(self, records: Iterable[R], content_hash: int | None = None) -> None:
        """Add initial records without journaling them (a world's construction); same state as `put` of each.

        `content_hash`: the table's hash, known already (a sealed spec carries its tables' hashes, see
        `coworkenv.spec_seal`): no record is digested now; each digest is computed when first read (`digest_of`,
        or a write that replaces or deletes the record). Only for hashes computed from these very records.
        """
        if self._indexes or not self._owned or self._rows:
            for record in records:
                self.put(record)
            return
        batch = list(records)
        ids: list[str] = list(map(attrgetter("id"), batch))
        rows = dict(zip(ids, batch, strict=True))
        if len(rows) != len(ids):  # a repeated id replaces the earlier record, as `put` does
            for record in batch:
                self.put(record)
            return
        self._rows = rows  # the table was empty (see above)
        self._seq = None  # numbered when first needed, in this same order
        if content_hash is not None:
            self._hash = content_hash
            return
        digests = digests_of(self.app, self.name, self.model, ids, batch)
        self._digests = dict(zip(ids, digests, strict=True))
        self._hash = combine(self._hash + sum(digests))

    def delete(self, record_id: str) -> None:
        old = self._rows.get(record_id)
        if old is None:
            return
        if not self._owned:
            self._own()
        if self._on_change is not None:
            self._on_change(self, record_id, old)
        self._hash = combine(self._hash, remove=self.digest_of(record_id) or 0)
        self._digests.pop(record_id, None)
        del self._rows[record_id]
        if self._seq is not None:
            del self._seq[record_id]
        if self._indexes and record_id not in self._unindexed:
            self._unindexed[record_id] = old

    def _restore(self, record_id: str, record: R | None) -> None:
        """Put back a journaled value without journaling it again."""
        hook, self._on_change = self._on_change, None
        try:
            if record is None:
                self.delete(record_id)
            else:
                self.put(record)
        finally:
            self._on_change = hook

    # -- indexed queries ------------------------------------------------------------------------
    def words(self, name: str) -> WordIndex:
        return self._index(name, WordIndex)  # type: ignore[return-value]

    def key(self, name: str) -> KeyIndex | KeyScan:
        """The key index `name`; on its first query (across forks), a `KeyScan` that answers one lookup by a scan."""
        if name not in self._indexes and name not in self._scanned and isinstance(self._index_specs.get(name), Key):
            self._scanned.add(name)
            return KeyScan(self, name)
        return self._index(name, KeyIndex)  # type: ignore[return-value]

    def order(self, name: str) -> OrderIndex:
        return self._index(name, OrderIndex)  # type: ignore[return-value]

    def derived(self, name: str) -> DerivedIndex:
        return self._index(name, DerivedIndex)  # type: ignore[return-value]

    def _sync(self) -> None:
        """Bring every index up to date with the writes since the last read of one: per written id, the record the
        indexes hold against the one stored now (a record written and then put back costs nothing)."""
        pending = dict(self._unindexed)
        self._unindexed.clear()  # the very dict the indexes watch (see `_Follower`)
        rows, indexes = self._rows, self._indexes.values()
        for record_id, held in pending.items():
            record = rows.get(record_id)
            if record is held:
                continue
            for index in indexes:
                if held is None:
                    index.add(record_id, record)
                elif record is None:
                    index.remove(record_id, held)
                else:
                    index.replace(record_id, held, record)

    def _followed(self, index: LiveIndex) -> LiveIndex:
        """`index`, made to catch up with this table's writes when read (an index of storage this table owns)."""
        index.follow(self._unindexed, self._sync)
        return index

    def _index(self, name: str, kind: type) -> LiveIndex:
        if self._unindexed:
            self._sync()
        index = self._indexes.get(name)
        if index is None and name in self._index_specs and self._owned and self._base is not None:
            index = self._index_from_base(name, kind)
        elif index is None and name in self._index_specs:
            index = self._index_specs[name].build()
            with gc_paused():  # many small sets and tuples at once
                if isinstance(index, OrderIndex | KeyIndex | DerivedIndex):
                    index.add_all(self._rows.items())
                else:
                    for record_id, record in self._rows.items():
                        index.add(record_id, record)
            # A fork that has not written reads its base's storage, which is never written: its indexes never lag.
            self._indexes[name] = self._followed(index) if self._owned else index
        if index is None or not isinstance(index, kind):
            raise KeyError(f"table {self.app}.{self.name} has no {kind.__name__} {name!r}; declare it in AppDef.indexes")
        return index

    def _index_from_base(self, name: str, kind: type) -> LiveIndex:
        """A fork's own index: the base's (built there once, for every fork) copied, with this fork's writes."""
        base = self._base
        assert base is not None
        index = base._index(name, kind).copy()
        rows, base_rows = self._rows, base._rows
        for record_id, record in rows.items():
            old = base_rows.get(record_id)
            if old is None:
                index.add(record_id, record)
            elif old is not record:
                index.replace(record_id, old, record)
        if len(rows) != len(base_rows) or any(i not in rows for i in base_rows):
            for record_id, old in base_rows.items():
                if record_id not in rows:
                    index.remove(record_id, old)
        self._indexes[name] = self._followed(index)
        return index

    def select(
        self,
        order: str | None = None,
        *,
        words: tuple[str, str | None] | None = None,
        sets: Iterable[IdSet | None] = (),
        where: Callable[[R], bool] | None = None,
        reverse: bool = False,
        limit: int | None = None,
        last: bool = False,
        between: tuple[Any, Any] | None = None,
        field_in: Mapping[str, Collection[Any]] | None = None,
    ) -> list[R]:
        """Records that contain every word of a query, are in every id set and satisfy `where`, sorted.

        `words=(index, query)`: every word of `query` occurs in the text of the word index `index` (the apps'
        `matches` rule). `sets`: id sets the record must be in (None: no constraint). Sorted by the order index
        `order` ((key, id) ascending; None: insertion order), descending with `reverse`; `between=(lo, hi)` keeps
        keys lo <= key < hi (None bounds are open). `field_in={name: values}`: the record's field `name` is one of
        `values` (tested by C iterators, with no Python call per record as `where` makes). Returns the first `limit`
        records, or the last `limit` ones (still in order) with `last`. Always equal to filtering every record and
        sorting them.
        """
        word_index = None
        if words is not None:
            name, query = words
            spec = self._index_specs.get(name)
            if name not in self._indexes and name not in self._scanned and isinstance(spec, Words):
                self._scanned.add(name)
                where = _text_check(spec, query, where)
            else:
                word_index = (self.words(name), query)
        selection = Selection(words=word_index, sets=list(sets), where=where, reverse=reverse, limit=limit, last=last,
                              between=between, field_in=field_in or {})
        order_spec = self._index_specs.get(order) if order is not None else None
        if (order is not None and order not in self._indexes and order not in self._scanned and word_index is None
                and isinstance(order_spec, Order)):
            self._scanned.add(order)
            return scan_select(self._rows, order_spec.key, selection)
        return run_select(self, self.order(order) if order is not None else None, selection)


class KeyScan:
    """A key index's first lookup, answered by a scan of the table (the same ids the index gives); any further
    lookup, or anything else asked of it, builds the index (as `Table.key` would) and asks it."""

    __slots__ = ("_name", "_scanned", "_table")

    def __init__(self, table: Table[Any], name: str) -> None:
        self._table, self._name, self._scanned = table, name, False

    def _built(self) -> KeyIndex:
        return self._table._index(self._name, KeyIndex)  # type: ignore[return-value]

    def ids(self, value: Hashable) -> set[str] | frozenset[str]:
        """Ids of the records with this key value, as `KeyIndex.ids` gives them."""
        if self._scanned:  # a tool asking many values (counts per list, per category): one build, not a scan each
            return self._built().ids(value)
        self._scanned = True
        spec = self._table._index_specs[self._name]
        assert isinstance(spec, Key)
        key, rows = spec.key, self._table._rows
        if spec.multi:
            return {i for i, record in rows.items() if value in set(key(record))}
        return set(compress(rows, map(partial(eq, value), map(key, rows.values()))))  # no Python frame but `key`'s

    def values(self) -> Iterator[Hashable]:
        self._scanned = True
        return self._built().values()


def _text_check(spec: Words, query: str | None, where: Callable[[Any], bool] | None) -> Callable[[Any], bool] | None:
    """`where` and the word index's own test (every query word occurs in the record's text), computed per record."""
    needles = list(dict.fromkeys((query or "").lower().split()))
    if not needles:
        return where
    texts = spec.texts

    def has_words(record: Any) -> bool:  # run once per record of a scan: no generator frames
        text = " ".join(filter(None, texts(record))).lower()
        for word in needles:
            if word not in text:
                return False
        return where is None or where(record)

    return has_words
