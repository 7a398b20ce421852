"""Near-duplicate requests: MinHash signatures and LSH banding, in bulk with numpy, for dedup and decontamination.

Similarity is the exact Jaccard index of word k-shingles (`shingles`, `jaccard`). MinHash + LSH only propose
candidate pairs, from bands tuned well below the threshold so that pairs just above it are rarely missed.
Everything per text is a row of a numpy array (about 300 bytes per text at 64 permutations), so a million
requests fit in memory; a dict-of-sets LSH index (datasketch's) costs ten times that.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

_WORD = re.compile(r"\w+")
SEED = 1
_CHUNK = 20_000  # texts per vectorised batch: bounds the memory of the shingle arrays
_MIX = np.uint64(0x9E3779B97F4A7C15)
_MAX_EARLIER = 64  # a text in a big bucket is compared with at most this many earlier ones
# A pair is compared exactly only if its MinHash estimate is at least threshold - _MARGIN: 0.2 is 3.5 standard
# errors of the estimate at 64 permutations and J = 0.7, so true near-duplicates are practically never skipped.
_MARGIN = 0.2
_PAIR_CHUNK = 200_000


def shingles(text: str, k: int = 3) -> frozenset[str]:
    """The word k-shingles of `text` (lower-cased); a text shorter than k words is one shingle."""
    words = _WORD.findall(text.lower())
    if len(words) <= k:
        return frozenset([" ".join(words)]) if words else frozenset()
    return frozenset(" ".join(words[i:i + k]) for i in range(len(words) - k + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b| (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


@dataclass(frozen=True)
class Signatures:
    """MinHash signatures of some texts: row `index[key]` of `matrix`; `has_words[row]` False for empty texts."""

    index: dict[str, int]
    matrix: np.ndarray  # (texts, permutations) uint32
    has_words: np.ndarray


def _shingle_hashes(texts: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
    """(64-bit hash of every word k-shingle, index of its text); a text under k words is one shingle.

    Shingles are hashed from word hashes (not their strings) so the work runs in polars and numpy.
    """
    words = pl.Series(list(texts), dtype=pl.String).str.to_lowercase().str.extract_all(r"\w+")
    lengths = words.list.len().fill_null(0).to_numpy().astype(np.int64)
    hashes = words.explode().drop_nulls().hash(seed=SEED).to_numpy().astype(np.uint64)
    text_of = np.repeat(np.arange(len(texts)), lengths)
    out_hashes, out_text = [], []
    with np.errstate(over="ignore"):  # wrapping uint64 arithmetic is the hash
        n = len(hashes) - k + 1
        if n > 0:
            combined = hashes[:n].copy()
            for j in range(1, k):
                combined = combined * _MIX + hashes[j:j + n]
            full = text_of[:n] == text_of[k - 1:k - 1 + n]
            out_hashes.append(combined[full])
            out_text.append(text_of[:n][full])
        short = np.flatnonzero((lengths > 0) & (lengths < k))
        if short.size:
            starts = np.concatenate([[0], np.cumsum(lengths)])[short]
            out_hashes.append(np.array([np.bitwise_xor.reduce(hashes[s:s + lengths[t]] * _MIX)
                                        for s, t in zip(starts, short, strict=True)], dtype=np.uint64))
            out_text.append(short)
    if not out_hashes:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    text_index = np.concatenate(out_text)
    order = np.argsort(text_index, kind="stable")
    return np.concatenate(out_hashes)[order], text_index[order]


def signatures(texts: Mapping[str, str], keys: Sequence[str], num_perm: int, k: int) -> Signatures:
    """MinHash signatures (multiply-add-shift permutations of 64-bit shingle hashes) of `texts[key]` for `keys`."""
    rng = np.random.default_rng(SEED)
    a = rng.integers(1, 2**63, size=num_perm, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64)
    matrix = np.zeros((len(keys), num_perm), dtype=np.uint32)
    has_words = np.zeros(len(keys), dtype=bool)
    for start in range(0, len(keys), _CHUNK):
        hashes, text_of = _shingle_hashes([texts[key] for key in keys[start:start + _CHUNK]], k)
        if not hashes.size:
            continue
        present, first = np.unique(text_of, return_index=True)
        rows = start + present
        has_words[rows] = True
        with np.errstate(over="ignore"):
            for j in range(num_perm):
                values = ((hashes * a[j] + b[j]) >> np.uint64(32)).astype(np.uint32)
                matrix[rows, j] = np.minimum.reduceat(values, first)
    return Signatures({key: i for i, key in enumerate(keys)}, matrix, has_words)


def bands_for(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows per band) for candidates from well below `threshold` (S-curve midpoint (1/b)^(1/r))."""
    target = max(0.1, threshold - 0.25)
    options = [(num_perm // r, r) for r in range(1, num_perm + 1)]
    return min(options, key=lambda br: abs((1 / br[0]) ** (1 / br[1]) - target))


def _band_keys(matrix: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """(texts, bands) uint64: one hash per band of each signature."""
    keys = np.zeros((matrix.shape[0], bands), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for band in range(bands):
            block = matrix[:, band * rows:(band + 1) * rows].astype(np.uint64)
            key = block[:, 0] + np.uint64(band)
            for c in range(1, rows):
                key = key * _MIX + block[:, c]
            keys[:, band] = key
    return keys


def plausible(left: np.ndarray, right: np.ndarray, pairs: np.ndarray, threshold: float) -> np.ndarray:
    """The pairs (rows of `left`, rows of `right`) whose MinHash estimate of Jaccard is within _MARGIN of
    `threshold`, in their order: only those are worth an exact comparison."""
    keep = np.zeros(len(pairs), dtype=bool)
    for start in range(0, len(pairs), _PAIR_CHUNK):
        chunk = pairs[start:start + _PAIR_CHUNK]
        agree = (left[chunk[:, 0]] == right[chunk[:, 1]]).mean(axis=1)
        keep[start:start + len(chunk)] = agree >= threshold - _MARGIN
    return pairs[keep]


def candidate_pairs(keys: np.ndarray) -> np.ndarray:
    """(earlier, later) row pairs that share a band key, unique, sorted by later then earlier."""
    pairs = []
    for band in range(keys.shape[1]):
        order = np.argsort(keys[:, band], kind="stable")
        sorted_keys = keys[order, band]
        same = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
        if not same.size:
            continue
        # Runs of equal keys: every member is paired with up to _MAX_EARLIER earlier members of its run.
        starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
        sizes = np.diff(np.r_[starts, len(sorted_keys)])
        for start, size in zip(starts[sizes > 1].tolist(), sizes[sizes > 1].tolist(), strict=True):
            members = np.sort(order[start:start + size])
            for m in range(1, size):
                earlier = members[max(0, m - _MAX_EARLIER):m]
                pairs.append(np.column_stack([earlier, np.full(len(earlier), members[m])]))
    if not pairs:
        return np.zeros((0, 2), dtype=np.int64)
    unique = np.unique(np.concatenate(pairs), axis=0)
    return unique[np.lexsort((unique[:, 0], unique[:, 1]))]


def near_duplicate_clusters(
    texts: Mapping[str, str], order: Iterable[str], *, threshold: float, num_perm: int, k: int
) -> tuple[dict[str, str], Signatures]:
    """Map every key to its cluster's representative: the first key in `order` within Jaccard `threshold`.

    Identical texts are one cluster without hashing. Returns (representative by key, signatures of the
    distinct texts, for reuse by `contaminated`).
    """
    representative: dict[str, str] = {}
    by_text: dict[str, str] = {}
    unique_keys: list[str] = []
    for key in order:
        first = by_text.setdefault(texts[key], key)
        representative[key] = first
        if first == key:
            unique_keys.append(key)
    sigs = signatures(texts, unique_keys, num_perm, k)
    bands, rows = bands_for(threshold, num_perm)
    with_words = np.flatnonzero(sigs.has_words)
    words = sigs.matrix[with_words]
    pairs = plausible(words, words, candidate_pairs(_band_keys(words, bands, rows)), threshold)
    kept = np.ones(len(unique_keys), dtype=bool)
    cache: dict[int, frozenset[str]] = {}

    def shingled(row: int) -> frozenset[str]:
        if row not in cache:
            cache[row] = shingles(texts[unique_keys[row]], k)
        return cache[row]

    for earlier, later in with_words[pairs].tolist():
        if kept[later] and kept[earlier] and jaccard(shingled(earlier), shingled(later)) >= threshold:
            kept[later] = False
            representative[unique_keys[later]] = unique_keys[earlier]
    for key, first in representative.items():
        representative[key] = representative[first]
    return representative, sigs


def contaminated(
    train: Mapping[str, str], held: Mapping[str, str], known: Signatures | None, *, threshold: float,
    num_perm: int, k: int,
) -> set[str]:
    """Keys of `train` whose text has Jaccard >= `threshold` with any `held` text (an evaluation request).

    Signatures in `known` are reused; the others are computed.
    """
    if not held or not train:
        return set()
    texts = {**train, **held}

    def matrix(keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
        if known is not None and all(key in known.index for key in keys):
            rows = [known.index[key] for key in keys]
            return known.matrix[rows], known.has_words[rows]
        fresh = signatures(texts, keys, num_perm, k)
        return fresh.matrix, fresh.has_words

    train_keys, held_keys = list(train), list(held)
    (train_m, train_w), (held_m, held_w) = matrix(train_keys), matrix(held_keys)
    bands, rows = bands_for(threshold, num_perm)
    train_bands, held_bands = _band_keys(train_m, bands, rows), _band_keys(held_m, bands, rows)
    held_rows = np.flatnonzero(held_w)
    found = []
    for band in range(bands):
        # Sorted held keys: each train row's bucket is a slice, found by binary search.
        order = held_rows[np.argsort(held_bands[held_rows, band], kind="stable")]
        sorted_keys = held_bands[order, band]
        lo = np.searchsorted(sorted_keys, train_bands[:, band], side="left")
        hi = np.searchsorted(sorted_keys, train_bands[:, band], side="right")
        for row in np.flatnonzero(train_w & (hi > lo)).tolist():
            found.append(np.column_stack([np.full(hi[row] - lo[row], row), order[lo[row]:hi[row]]]))
    if not found:
        return set()
    pairs = plausible(train_m, held_m, np.unique(np.concatenate(found), axis=0), threshold)
    cache: dict[str, frozenset[str]] = {}

    def shingled(key: str) -> frozenset[str]:
        if key not in cache:
            cache[key] = shingles(texts[key], k)
        return cache[key]

    hits: set[str] = set()
    for row, h in pairs.tolist():
        key = train_keys[row]
        if key not in hits and jaccard(shingled(key), shingled(held_keys[h])) >= threshold:
            hits.add(key)
    return hits


def request_families(
    texts: Mapping[str, str], keys: Sequence[str], *, threshold: float, num_perm: int, k: int,
    known: Signatures | None = None,
) -> dict[str, str]:
    """Map every key to its request family: the connected component of texts linked by Jaccard >= `threshold`.

    A family is named by its smallest key, so it keeps its name when unrelated texts are added. Putting a
    whole family in one split leaves no train text within `threshold` of a held-out one (up to LSH misses).
    Signatures in `known` are reused when they cover every key.
    """
    keys = list(keys)
    if known is not None and all(key in known.index for key in keys):
        rows = [known.index[key] for key in keys]
        matrix, has_words = known.matrix[rows], known.has_words[rows]
    else:
        fresh = signatures(texts, keys, num_perm, k)
        matrix, has_words = fresh.matrix, fresh.has_words
    parent = list(range(len(keys)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]  # path halving keeps the trees flat
            i = parent[i]
        return i

    by_text: dict[str, int] = {}
    for i, key in enumerate(keys):  # identical texts are one family without hashing
        parent[i] = root(by_text.setdefault(texts[key], i))
    bands, rows_per_band = bands_for(threshold, num_perm)
    with_words = np.flatnonzero(has_words)
    words = matrix[with_words]
    pairs = plausible(words, words, candidate_pairs(_band_keys(words, bands, rows_per_band)), threshold)
    cache: dict[int, frozenset[str]] = {}

    def shingled(i: int) -> frozenset[str]:
        if i not in cache:
            cache[i] = shingles(texts[keys[i]], k)
        return cache[i]

    for a, b in with_words[pairs].tolist():
        ra, rb = root(a), root(b)
        if ra != rb and jaccard(shingled(a), shingled(b)) >= threshold:
            parent[max(ra, rb)] = min(ra, rb)
    name: dict[int, str] = {}
    for i, key in enumerate(keys):
        r = root(i)
        name[r] = min(name.get(r, key), key)
    return {key: name[root(i)] for i, key in enumerate(keys)}
