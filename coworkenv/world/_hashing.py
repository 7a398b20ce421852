"""Canonical JSON and record digests: the basis of every content hash in coworkenv."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

_MASK = (1 << 128) - 1


def canonical_json(value: Any) -> bytes:
    """Serialize `value` to canonical JSON bytes (sorted keys, no whitespace)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def content_hash(value: Any) -> str:
    """Hex sha256 of the canonical JSON of `value`."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def record_digest(app: str, table: str, record_id: str, record: dict[str, Any]) -> int:
    """128-bit digest of one record at its address; digests combine by addition (order-free)."""
    data = canonical_json([app, table, record_id, record])
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "big")


def combine(total: int, add: int = 0, remove: int = 0) -> int:
    """Update an additive multiset hash: add one digest, remove another (mod 2**128)."""
    return (total + add - remove) & _MASK
