"""A table of typed records with an incrementally maintained content hash."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from coworkenv.world._hashing import combine, record_digest

R = TypeVar("R", bound=BaseModel)


class Table(Generic[R]):
    """Records of one type keyed by id.

    Records are frozen pydantic models: writers replace a record instead of mutating it, which lets
    snapshots share records and keeps the per-record digest cache valid.
    """

    __slots__ = ("_digests", "_hash", "_on_change", "_rows", "app", "model", "name")

    def __init__(self, app: str, name: str, model: type[R], on_change: Any = None) -> None:
        self.app = app
        self.name = name
        self.model = model
        self._rows: dict[str, R] = {}
        self._digests: dict[str, int] = {}
        self._hash = 0
        # World's change journal: called with (table, id, previous record or None) before a write.
        self._on_change = on_change

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
        return self._digests.get(record_id)

    # -- writing ------------------------------------------------------------------------------
    def put(self, record: R) -> None:
        """Insert or replace a record (its id is `record.id`)."""
        record_id: str = record.id  # type: ignore[attr-defined]
        old = self._rows.get(record_id)
        if self._on_change is not None:
            self._on_change(self, record_id, old)
        digest = record_digest(self.app, self.name, record_id, record.model_dump(mode="json"))
        self._hash = combine(self._hash, add=digest, remove=self._digests.get(record_id, 0))
        self._rows[record_id] = record
        self._digests[record_id] = digest

    def delete(self, record_id: str) -> None:
        old = self._rows.get(record_id)
        if old is None:
            return
        if self._on_change is not None:
            self._on_change(self, record_id, old)
        self._hash = combine(self._hash, remove=self._digests.pop(record_id))
        del self._rows[record_id]

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
