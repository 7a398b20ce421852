"""Fixture records of a Claw-Eval service as rows of one coworkenv app table.

A `RecordMap` names, per app field, the fixture field (or a function of the fixture record and the fields it
reads) that fills it. Fixture fields no app field holds are either folded, as `field: value` lines, into one
free-text app field (a contact's notes, a note's body), so the agent still sees them, or dropped; `unheld`
says which, so the importer can report it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson


@dataclass(frozen=True)
class Derived:
    """An app field computed from fixture fields (`reads` names them, for the report of what is held)."""

    reads: tuple[str, ...]
    compute: Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True)
class RecordMap:
    """How a fixture's records become rows of one app table."""

    table: str
    list_key: str  # where the records are when the fixture is an object rather than a list
    fields: Mapping[str, str | Derived]  # app field -> fixture field, or a value derived from the record
    fold_into: str | None = None  # free-text app field holding the fixture fields no app field takes
    defaults: Mapping[str, Any] = field(default_factory=dict)  # app fields the fixture never gives
    # Fixed rows of other tables of the app the records need (e.g. the one list every to-do task is in).
    extra_rows: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    # The records as the service holds them once loaded, when it changes them as it loads (the calendar moves its
    # events' times); None: as the fixture gives them.
    loaded: Callable[[list[Mapping[str, Any]]], list[Mapping[str, Any]]] | None = None

    def rows(self, data: Any) -> list[Mapping[str, Any]]:
        """The fixture's records (a list, or the list under `list_key`), as the service holds them once loaded."""
        rows = data if isinstance(data, list) else data.get(self.list_key, []) if isinstance(data, dict) else []
        records: list[Mapping[str, Any]] = [r for r in rows if isinstance(r, dict)]
        return self.loaded(records) if self.loaded is not None else records

    def held(self) -> set[str]:
        """The fixture fields some app field takes."""
        return {f for src in self.fields.values() for f in ((src,) if isinstance(src, str) else src.reads)}

    def __call__(self, data: Any) -> dict[str, list[dict[str, Any]]]:
        """The app rows of the fixture; ValueError naming the record and field when a value does not fit."""
        out = []
        held = self.held()
        for n, record in enumerate(self.rows(data)):
            row: dict[str, Any] = dict(self.defaults)
            for name, src in self.fields.items():
                try:
                    value = record.get(src) if isinstance(src, str) else src.compute(record)
                except (ValueError, TypeError, KeyError) as exc:
                    raise ValueError(f"record {n}: cannot read {name!r} ({exc})") from None
                if value is not None:
                    row[name] = value
            if not row.get("id"):
                source = self.fields.get("id")
                raise ValueError(f"record {n}: no id ({source if isinstance(source, str) else source and source.reads})")
            if self.fold_into is not None:
                lines = [f"{k}: {as_text(v)}" for k, v in record.items() if k not in held and v not in (None, "", [])]
                base = str(row.get(self.fold_into) or "")
                row[self.fold_into] = "\n".join([base, *lines] if base else lines)
            out.append(row)
        return {self.table: out, **{table: [dict(r) for r in rows] for table, rows in self.extra_rows.items()}}

    def unheld(self, data: Any) -> list[str]:
        """Fixture fields of `data` that no app field takes (folded when `fold_into` is set, else dropped)."""
        held = self.held()
        return sorted({k for record in self.rows(data) for k in record if k not in held})


def as_text(value: Any) -> str:
    """A fixture value as one line of text: lists joined with commas, objects as JSON."""
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict | list):
        return orjson.dumps(value).decode()
    return str(value)


def text_of(name: str) -> Derived:
    """The fixture field as text ('' when missing)."""
    return Derived((name,), lambda r: as_text(r[name]) if r.get(name) is not None else "")


def tags_of(*names: str, then: tuple[str, ...] = ()) -> Derived:
    """The non-empty values of the fixture fields (lists flattened) as a list of tags, then the tags `then`."""
    def compute(record: Mapping[str, Any]) -> list[str]:
        out: list[str] = []
        for name in names:
            value = record.get(name)
            for item in value if isinstance(value, list) else [value]:
                if item not in (None, "") and str(item) not in out:
                    out.append(str(item))
        return [*out, *(t for t in then if t not in out)]
    return Derived(names, compute)


def first_of(*names: str) -> Derived:
    """The first of the fixture fields that has a value, as text."""
    return Derived(names, lambda r: next((as_text(r[n]) for n in names if r.get(n) not in (None, "")), None))
