"""Secondary indexes of a table, kept on every write: word search, equality keys and sort orders.

They let search and list tools answer from the records that can match instead of scanning the table, with the
results and order a scan gives:

- `Words`: which records contain a query word as a substring of their text (the `matches` rule of the apps).
  A word without whitespace occurs in a text exactly when it occurs inside one whitespace-separated token of it,
  so the index maps tokens to records and the trigrams of the distinct tokens to tokens.
- `Key`: records by the value of a key (or each value of a list field): folders, statuses, owners, labels.
- `Order`: records sorted by a key computed once at write (times parsed to epoch seconds there, not per query).

Index specs are declared per table on the app (`AppDef.indexes`); every `Table` builds its own live indexes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from operator import contains, itemgetter
from typing import Any

from sortedcontainers import SortedList

_EMPTY: frozenset[str] = frozenset()
_GRAM = 3


@dataclass(frozen=True)
class Words:
    """Spec of a word index over the texts `texts(record)` returns (joined with spaces, lowercased)."""

    texts: Callable[[Any], Iterable[str | None]]

    def build(self) -> WordIndex:
        return WordIndex(self.texts)


@dataclass(frozen=True)
class Key:
    """Spec of an equality index; with `multi`, `key(record)` is an iterable and each value is indexed."""

    key: Callable[[Any], Any]
    multi: bool = False

    def build(self) -> KeyIndex:
        return KeyIndex(self.key, self.multi)


@dataclass(frozen=True)
class Order:
    """Spec of a sort order: records sorted by `(key(record), id)`."""

    key: Callable[[Any], Any]

    def build(self) -> OrderIndex:
        return OrderIndex(self.key)


@dataclass(frozen=True)
class Derived:
    """Spec of a value computed once per record at write (e.g. times parsed to epoch seconds)."""

    value: Callable[[Any], Any]

    def build(self) -> DerivedIndex:
        return DerivedIndex(self.value)


IndexSpec = Words | Key | Order | Derived


def prefix_range(prefix: str) -> tuple[str, str | None]:
    """(lo, hi) with lo <= s < hi exactly for the strings s that start with `prefix` (hi None: unbounded)."""
    if not prefix:
        return "", None
    last = ord(prefix[-1])
    return prefix, (prefix[:-1] + chr(last + 1)) if last < 0x10FFFF else None


class _Follower:
    """An index that may lag its table's writes: the table notes them and brings its indexes up to date when one is
    read (`Table._sync`). Reading an index through its table does that; so does each read method here, for an index
    object held across writes."""

    __slots__ = ("_catch_up", "_lagging")

    def _init_follower(self) -> None:
        self._lagging: Mapping[str, Any] | None = None
        self._catch_up: Callable[[], None] | None = None

    def follow(self, lagging: Mapping[str, Any], catch_up: Callable[[], None]) -> None:
        """Follow a table whose writes not yet applied are `lagging` (while non-empty) and applied by `catch_up`."""
        self._lagging, self._catch_up = lagging, catch_up

    def _fresh(self) -> None:
        if self._lagging and self._catch_up is not None:
            self._catch_up()


def tokens(texts: Iterable[str | None]) -> list[str]:
    """The whitespace-separated lowercase tokens of the texts, joined as the apps' `matches` joins them."""
    return " ".join(t for t in texts if t).lower().split()


def _grams(token: str) -> set[str]:
    return {token[i:i + _GRAM] for i in range(len(token) - _GRAM + 1)}


class WordIndex(_Follower):
    """Records by the tokens of their text; distinct tokens by their trigrams."""

    __slots__ = ("_by_gram", "_owned", "_postings", "_text", "texts")

    def __init__(self, texts: Callable[[Any], Iterable[str | None]]) -> None:
        self._init_follower()
        self.texts = texts
        self._postings: dict[str, set[str]] = {}
        self._by_gram: dict[str, set[str]] = {}
        self._text: dict[str, str] = {}  # the lowercase text of each record, for words too common to index by set
        # Sets this index may change in place; None: all of them. A copy shares the others until it writes them.
        self._owned: _Owned | None = None

    def copy(self) -> WordIndex:
        """An index equal to this one that shares its sets until it changes them (copy-on-write)."""
        twin = WordIndex(self.texts)
        twin._postings, twin._by_gram, twin._text = dict(self._postings), dict(self._by_gram), dict(self._text)
        twin._owned = _Owned()
        return twin

    def _posting(self, tok: str) -> set[str] | None:
        posting = self._postings.get(tok)
        if posting is not None and self._owned is not None and tok not in self._owned.keys:
            posting = self._postings[tok] = set(posting)
            self._owned.keys.add(tok)
        return posting

    def _gram_holders(self, gram: str) -> set[str]:
        holders = self._by_gram.get(gram)
        if holders is None:
            holders = self._by_gram[gram] = set()
            if self._owned is not None:
                self._owned.grams.add(gram)
        elif self._owned is not None and gram not in self._owned.grams:
            holders = self._by_gram[gram] = set(holders)
            self._owned.grams.add(gram)
        return holders

    def add(self, record_id: str, record: Any) -> None:
        text = self._text[record_id] = " ".join(t for t in self.texts(record) if t).lower()
        self._add_tokens(record_id, set(text.split()))

    def replace(self, record_id: str, old: Any, new: Any) -> None:
        """Re-index a changed record: only tokens that appear or disappear cost anything."""
        before = self._text.get(record_id, "")
        text = " ".join(t for t in self.texts(new) if t).lower()
        if text == before:
            return
        self._text[record_id] = text
        old_tokens, new_tokens = set(before.split()), set(text.split())
        self._remove_tokens(record_id, old_tokens - new_tokens)
        self._add_tokens(record_id, new_tokens - old_tokens)

    def remove(self, record_id: str, record: Any) -> None:
        self._remove_tokens(record_id, set(self._text.pop(record_id, "").split()))

    def _add_tokens(self, record_id: str, toks: Iterable[str]) -> None:
        if self._owned is None:  # an index of its own (not a copy): no set is shared
            postings, by_gram = self._postings, self._by_gram
            for tok in toks:
                posting = postings.get(tok)
                if posting is None:
                    posting = postings[tok] = set()
                    for gram in _grams(tok):
                        by_gram.setdefault(gram, set()).add(tok)
                posting.add(record_id)
            return
        for tok in toks:
            posting = self._posting(tok)
            if posting is None:
                posting = self._postings[tok] = set()
                if self._owned is not None:
                    self._owned.keys.add(tok)
                for gram in _grams(tok):
                    self._gram_holders(gram).add(tok)
            posting.add(record_id)

    def _remove_tokens(self, record_id: str, toks: Iterable[str]) -> None:
        for tok in toks:
            posting = self._posting(tok)
            assert posting is not None
            posting.discard(record_id)
            if not posting:
                del self._postings[tok]
                for gram in _grams(tok):
                    holders = self._gram_holders(gram)
                    holders.discard(tok)
                    if not holders:
                        del self._by_gram[gram]

    def tokens_containing(self, word: str) -> set[str] | frozenset[str]:
        """The distinct tokens that contain `word` (lowercase, no whitespace)."""
        self._fresh()
        if len(word) < _GRAM:  # too short for a trigram: look through the vocabulary (rare in real queries)
            return {t for t in self._postings if word in t}
        if len(word) == _GRAM:
            return self._by_gram.get(word, _EMPTY)
        grams = [word[i:i + _GRAM] for i in range(len(word) - _GRAM + 1)]
        sets = sorted(map(self._by_gram.get, grams, itertools.repeat(_EMPTY)), key=len)
        # The tokens holding every trigram (one C intersection from the smallest set), then those holding the word
        # (tested in C: no Python frame per token).
        held = sets[0].intersection(*sets[1:])
        return set(itertools.compress(held, map(contains, held, itertools.repeat(word))))

    def postings_size(self, found: Iterable[str]) -> int:
        """How many (token, record) entries the tokens have: the cost of `ids_with_tokens`."""
        self._fresh()
        return sum(map(len, map(self._postings.__getitem__, found)))

    def ids_with_tokens(self, found: set[str] | frozenset[str]) -> set[str] | frozenset[str]:
        """Ids of the records with any of the tokens. Do not mutate the result."""
        self._fresh()
        if not found:
            return _EMPTY
        if len(found) == 1:
            return self._postings[next(iter(found))]
        out: set[str] = set()
        for tok in found:
            out |= self._postings[tok]
        return out

    def ids_with_word(self, word: str) -> set[str] | frozenset[str]:
        """Ids of the records whose text contains `word` (lowercase, no whitespace). Do not mutate the result."""
        return self.ids_with_tokens(self.tokens_containing(word))

    def with_word(self, word: str) -> Callable[[Iterable[str]], Iterator[str]]:
        """A filter of a stream of record ids: those whose text contains `word` (the scan's own test, on the stored
        text), lazily and in C (no Python call per id: a common word's walk may test many records)."""
        self._fresh()
        text = self._text.__getitem__

        def having(ids: Iterable[str]) -> Iterator[str]:
            kept, probed = itertools.tee(ids)
            return itertools.compress(kept, map(contains, map(text, probed), itertools.repeat(word)))

        return having


class KeyIndex(_Follower):
    """Record ids by key value."""

    __slots__ = ("_ids", "_owned", "key", "multi")

    def __init__(self, key: Callable[[Any], Any], multi: bool) -> None:
        self._init_follower()
        self.key = key
        self.multi = multi
        self._ids: dict[Hashable, set[str]] = {}
        self._owned: set[Hashable] | None = None  # see WordIndex._owned

    def copy(self) -> KeyIndex:
        """An index equal to this one that shares its id sets until it changes them (copy-on-write)."""
        twin = KeyIndex(self.key, self.multi)
        twin._ids, twin._owned = dict(self._ids), set()
        return twin

    def _ids_of(self, value: Hashable, create: bool) -> set[str] | None:
        ids = self._ids.get(value)
        if ids is None:
            if not create:
                return None
            ids = self._ids[value] = set()
            if self._owned is not None:
                self._owned.add(value)
        elif self._owned is not None and value not in self._owned:
            ids = self._ids[value] = set(ids)
            self._owned.add(value)
        return ids

    def _values(self, record: Any) -> set[Hashable] | tuple[Hashable]:
        return set(self.key(record)) if self.multi else (self.key(record),)

    def add(self, record_id: str, record: Any) -> None:
        for value in self._values(record):
            self._ids_of(value, True).add(record_id)  # type: ignore[union-attr]

    def add_all(self, items: Iterable[tuple[str, Any]]) -> None:
        """Add many (id, record) pairs: the same sets as `add` of each, in one tight loop."""
        if self._owned is not None:  # a copy: sets are shared until owned
            for record_id, record in items:
                self.add(record_id, record)
            return
        table, key = self._ids, self.key
        if self.multi:
            for record_id, record in items:
                for value in set(key(record)):
                    ids = table.get(value)
                    if ids is None:
                        ids = table[value] = set()
                    ids.add(record_id)
            return
        for record_id, record in items:
            value = key(record)
            ids = table.get(value)
            if ids is None:
                ids = table[value] = set()
            ids.add(record_id)

    def remove(self, record_id: str, record: Any) -> None:
        for value in self._values(record):
            ids = self._ids_of(value, False)
            if ids is not None:
                ids.discard(record_id)
                if not ids:
                    del self._ids[value]

    def replace(self, record_id: str, old: Any, new: Any) -> None:
        before, after = self._values(old), self._values(new)
        if before != after:
            self.remove(record_id, old)
            self.add(record_id, new)

    def ids(self, value: Hashable) -> set[str] | frozenset[str]:
        """Ids of the records with this key value. Do not mutate the result."""
        self._fresh()
        return self._ids.get(value, _EMPTY)

    def values(self) -> Iterator[Hashable]:
        self._fresh()
        return iter(self._ids)


class DerivedIndex(_Follower):
    """A value per record id, computed at write."""

    __slots__ = ("_values", "value")

    def __init__(self, value: Callable[[Any], Any]) -> None:
        self._init_follower()
        self.value = value
        self._values: dict[str, Any] = {}

    def copy(self) -> DerivedIndex:
        twin = DerivedIndex(self.value)
        twin._values = dict(self._values)
        return twin

    def add(self, record_id: str, record: Any) -> None:
        self._values[record_id] = self.value(record)

    def add_all(self, items: Iterable[tuple[str, Any]]) -> None:
        value = self.value
        self._values.update((record_id, value(record)) for record_id, record in items)

    def replace(self, record_id: str, old: Any, new: Any) -> None:
        self._values[record_id] = self.value(new)

    def remove(self, record_id: str, record: Any) -> None:
        self._values.pop(record_id, None)

    def __getitem__(self, record_id: str) -> Any:
        self._fresh()
        return self._values[record_id]


class OrderIndex(_Follower):
    """(key, id) pairs in sorted order; each record's key is computed once, at write."""

    __slots__ = ("_keys", "_ranks", "_sorted", "_unranked_work", "key")

    def __init__(self, key: Callable[[Any], Any]) -> None:
        self._init_follower()
        self.key = key
        self._sorted: SortedList = SortedList()
        self._keys: dict[str, Any] = {}
        # Each id's position in the order (None: not built since the last write; a built one is never changed, so
        # copies share it), and the candidates sorted without it since then (see `ranks`).
        self._ranks: dict[str, int] | None = None
        self._unranked_work = 0

    def copy(self) -> OrderIndex:
        twin = OrderIndex(self.key)
        twin._sorted = SortedList(self._sorted)  # already sorted: a linear pass
        twin._keys = dict(self._keys)
        twin._ranks, twin._unranked_work = self._ranks, self._unranked_work
        return twin

    def _written(self) -> None:
        self._ranks, self._unranked_work = None, 0

    def add(self, record_id: str, record: Any) -> None:
        value = self._keys[record_id] = self.key(record)
        self._sorted.add((value, record_id))
        self._written()

    def add_all(self, items: Iterable[tuple[str, Any]]) -> None:
        """Add many (id, record) pairs: one sort instead of an insertion each."""
        keys, key = self._keys, self.key
        pairs = []
        for record_id, record in items:
            value = keys[record_id] = key(record)
            pairs.append((value, record_id))
        self._sorted.update(pairs)
        self._written()

    def replace(self, record_id: str, old: Any, new: Any) -> None:
        value = self.key(new)
        if value != self._keys[record_id]:
            self._sorted.remove((self._keys[record_id], record_id))
            self._keys[record_id] = value
            self._sorted.add((value, record_id))
            self._written()

    def remove(self, record_id: str, record: Any) -> None:
        self._sorted.remove((self._keys.pop(record_id), record_id))
        self._written()

    def ranks(self, candidates: int) -> Mapping[str, int] | None:
        """Each id's position in the (key, id) order, or None while building it would not pay yet.

        A query about to sort `candidates` ids asks first: positions are distinct ints, so one sort by them gives the
        order that sorting by id and then by key gives. They are built once the candidates sorted without them since
        the last write add up to the index's size (building costs about one pass over it), so a table written
        between most queries pays at most about twice what it would without them.
        """
        self._fresh()
        if self._ranks is None:
            self._unranked_work += candidates
            if self._unranked_work < len(self._sorted):
                return None
            self._ranks = dict(zip(map(itemgetter(1), self._sorted), itertools.count()))
        return self._ranks

    def key_of(self, record_id: str) -> Any:
        """The key stored for a record id."""
        self._fresh()
        return self._keys[record_id]

    @property
    def keys(self) -> Mapping[str, Any]:
        """Every record id's key (read-only view for sorting)."""
        self._fresh()
        return self._keys

    def __len__(self) -> int:
        self._fresh()
        return len(self._sorted)

    def pairs(self, reverse: bool = False) -> Iterator[tuple[Any, str]]:
        """Every (key, id) in order (or reversed)."""
        self._fresh()
        return reversed(self._sorted) if reverse else iter(self._sorted)

    def range(self, lo: Any = None, hi: Any = None, reverse: bool = False) -> Iterator[tuple[Any, str]]:
        """The (key, id) pairs with lo <= key < hi (None: unbounded), in order."""
        self._fresh()
        sl = self._sorted
        start = 0 if lo is None else sl.bisect_left((lo,))
        stop = len(sl) if hi is None else sl.bisect_left((hi,))
        return sl.islice(start, stop, reverse=reverse)  # type: ignore[no-any-return]

    def count(self, lo: Any = None, hi: Any = None) -> int:
        """How many keys k have lo <= k < hi."""
        self._fresh()
        sl = self._sorted
        start = 0 if lo is None else sl.bisect_left((lo,))
        stop = len(sl) if hi is None else sl.bisect_left((hi,))
        return max(0, stop - start)


class _Owned:
    """The tokens and trigrams whose sets a copied WordIndex has made its own."""

    __slots__ = ("grams", "keys")

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.grams: set[str] = set()


LiveIndex = WordIndex | KeyIndex | OrderIndex | DerivedIndex
