"""Planning one indexed query: which constraints become id sets, and whether to walk an order or sort candidates.

Two plans give the same records in the same order as a scan:
- walk: go through the order index (or the table's insertion order) and keep what passes every constraint, until
  `limit` records are found. Cheap when matches are common: about limit * size / matches steps.
- sort: take the smallest id set, keep what passes, sort the survivors by (key, id). Cheap when a set is small.
A query word becomes an id set when few records contain it; a common word is checked on each record's text
instead (building the union of its postings would cost more than the walk that finds `limit` records with it).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, tee
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from coworkenv.world._index import OrderIndex, WordIndex

if TYPE_CHECKING:
    from coworkenv.world._table import Table

IdSet = set[str] | frozenset[str]
IdFilter = Callable[[Iterable[str]], Iterator[str]]  # keeps the ids of a stream that pass a test, lazily
# Relative costs on CPython 3.11: a walk step (a Python loop turn), a candidate intersected (C set operation), and a
# surviving candidate sorted.
_WALK_STEP = 1.0
_INTERSECT_STEP = 0.05
_SORT_STEP = 1.5
# A word's records become an id set when it has at most this many postings (or 1/32 of the table).
_RARE_POSTINGS = 256
_RARE_FRACTION = 32
# Candidates beyond this many times the limit (and this many in all) are ranked with a heap instead of being sorted:
# below that, two sorts in C beat a heap (even one over (key, id) pairs made in C).
_PARTIAL_SORT = 16
_PARTIAL_SORT_MIN = 1_500


@dataclass
class Selection:
    """What `Table.select` asks for (see there)."""

    words: tuple[WordIndex, str | None] | None = None
    sets: list[IdSet | None] = field(default_factory=list)
    where: Callable[[Any], bool] | None = None
    reverse: bool = False
    limit: int | None = None
    last: bool = False
    between: tuple[Any, Any] | None = None
    field_in: Mapping[str, Collection[Any]] = field(default_factory=dict)


def with_fields(records: Iterable[Any], field_in: Mapping[str, Collection[Any]]) -> Iterator[Any]:
    """The records whose field `name` is in `field_in[name]`, for every name: lazily, by C iterators (no Python
    frame per record)."""
    kept = iter(records)
    for name, allowed in field_in.items():
        kept, values = tee(kept)
        kept = compress(kept, map(allowed.__contains__, map(attrgetter(name), values)))
    return kept


def run_select(table: Table[Any], index: OrderIndex | None, q: Selection) -> list[Any]:
    """The records `q` selects from `table`, ordered by `index` (None: insertion order)."""
    rows: dict[str, Any] = table._rows  # the query layer of the table reads its rows
    wanted = [s for s in q.sets if s is not None]
    checks: list[IdFilter] = []
    if q.words is not None:
        found = _word_constraints(q.words[0], q.words[1], len(rows), wanted, checks)
        if not found:
            return []
    if any(not s for s in wanted):
        return []
    wanted.sort(key=len)
    if wanted:
        # The entries a walk may visit (counted only here: a query without sets walks at once).
        size = index.count(*q.between) if index is not None and q.between is not None else len(rows)
        # Expected matches if the sets are independent; the walk visits about limit / match rate entries.
        rates = [len(s) / max(1, len(rows)) for s in wanted]
        rate = 1.0
        for r in rates:
            rate *= r
        walk_steps = size if q.limit is None else min(size, q.limit / max(rate, 1e-9))
        k = len(wanted[0])
        sort_cost = k * _INTERSECT_STEP * len(wanted) + k * (rate / max(rates[0], 1e-9)) * _SORT_STEP
        if sort_cost <= walk_steps * _WALK_STEP:
            return _sorted_candidates(rows, table, index, wanted, q.where, q, checks)
    return _walk(rows, index, wanted, q.where, q, checks)


def _word_constraints(
    words: WordIndex, query: str | None, n: int, wanted: list[IdSet], checks: list[IdFilter],
) -> bool:
    """Add an id set (rare word) or a text filter (common word) per query word; False when a word is nowhere."""
    for word in dict.fromkeys((query or "").lower().split()):
        tokens = words.tokens_containing(word)
        if not tokens:
            return False
        if words.postings_size(tokens) <= max(_RARE_POSTINGS, n // _RARE_FRACTION):
            wanted.append(words.ids_with_tokens(tokens))
        else:
            checks.append(words.with_word(word))
    return True


def _walk(rows: dict[str, Any], index: OrderIndex | None, wanted: list[IdSet],
          where: Callable[[Any], bool] | None, q: Selection, checks: Sequence[IdFilter] = ()) -> list[Any]:
    walk_reverse = q.reverse != q.last
    if index is None:
        ids: Iterable[str] = reversed(rows) if walk_reverse else iter(rows)
    else:
        pairs = index.range(*q.between, reverse=walk_reverse) if q.between is not None else index.pairs(walk_reverse)
        ids = map(itemgetter(1), pairs)
    # C iterators chained lazily: membership tests and lookups run without a Python loop turn per visited entry.
    for s in wanted:
        ids = filter(s.__contains__, ids)
    for check in checks:
        ids = check(ids)
    records: Iterable[Any] = map(rows.__getitem__, ids)
    if q.field_in:
        records = with_fields(records, q.field_in)
    if where is not None:
        records = filter(where, records)
    out = list(islice(records, max(0, q.limit))) if q.limit is not None else list(records)
    return out[::-1] if q.last else out


def _sorted_candidates(rows: dict[str, Any], table: Table[Any], index: OrderIndex | None, wanted: list[IdSet],
                       where: Callable[[Any], bool] | None, q: Selection, checks: Sequence[IdFilter] = ()) -> list[Any]:
    first, rest = wanted[0], wanted[1:]
    ids = list(first.intersection(*rest) if rest else first)
    if index is not None and q.between is not None:
        lo, hi = q.between
        key = index.keys.__getitem__
        ids = [i for i in ids if (lo is None or key(i) >= lo) and (hi is None or key(i) < hi)]
    for check in checks:
        ids = list(check(ids))
    for name, allowed in q.field_in.items():
        ids = list(compress(ids, map(allowed.__contains__, map(attrgetter(name), map(rows.__getitem__, ids)))))
    if where is not None:
        ids = [i for i in ids if where(rows[i])]
    # Positions in (key, id) order (insertion numbers, an order's ranks) are distinct ints: sorting by them is the
    # whole sort, with no sort by id first and no key comparisons (keys may be strings or tuples).
    positions = table.insertion_numbers() if index is None else index.ranks(len(ids))
    key = positions.__getitem__ if positions is not None else index.keys.__getitem__  # type: ignore[union-attr]
    if q.limit is not None and 0 < q.limit * _PARTIAL_SORT < len(ids) and len(ids) > _PARTIAL_SORT_MIN:
        # A few of many: a heap picks them in (key, id) order without sorting every candidate. The (key, id) pairs
        # are made in C (map, zip), so the heap compares tuples without calling a Python key function per candidate.
        first_few = heapq.nlargest if q.reverse != q.last else heapq.nsmallest
        ids = [i for _, i in first_few(q.limit, zip(map(key, ids), ids, strict=True))]
        return [rows[i] for i in (reversed(ids) if q.last else ids)]
    if positions is None:
        ids.sort(reverse=q.reverse)  # by id first: the stable sort by key below keeps equal keys in id order
    ids.sort(key=key, reverse=q.reverse)
    if q.limit is not None:
        n = max(0, q.limit)
        ids = ids[max(0, len(ids) - n):] if q.last else ids[:n]
    return [rows[i] for i in ids]


def scan_select(rows: dict[str, Any], key: Callable[[Any], Any], q: Selection) -> list[Any]:
    """What `run_select` gives with an order index of `key`, from a scan: the matches' keys only are computed."""
    wanted = [s for s in q.sets if s is not None]
    ids: Iterable[str] = iter(rows)
    for s in sorted(wanted, key=len):
        ids = filter(s.__contains__, ids)
    records: Iterable[Any] = map(rows.__getitem__, ids) if wanted else rows.values()
    for name, allowed in q.field_in.items():  # C loops over the records' list (no Python call per record)
        records = list(records)
        records = compress(records, map(allowed.__contains__, map(attrgetter(name), records)))
    if q.where is not None:
        records = filter(q.where, records)
    pairs = [(key(record), record.id, record) for record in records]
    if q.between is not None:
        lo, hi = q.between
        pairs = [p for p in pairs if (lo is None or p[0] >= lo) and (hi is None or p[0] < hi)]
    pairs.sort(key=itemgetter(0, 1), reverse=q.reverse)
    if q.limit is not None:
        n = max(0, q.limit)
        pairs = pairs[max(0, len(pairs) - n):] if q.last else pairs[:n]
    return [p[2] for p in pairs]
