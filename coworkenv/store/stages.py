"""One reader of environment specs for every stage: a spec JSON file, a folder of them, or Parquet.

Accepted inputs (the same for `env run`, `validate`, `rollout`, `eval` and `train rl`):
- a `.json` file holding one spec object, or a list of them;
- a `.jsonl` file, one spec per line;
- a `.parquet` file with a string `spec_json` column: synth's specs (SPECS_SCHEMA), validate's candidates
  (CANDIDATES_SCHEMA) or its accepted envs (ACCEPTED_SCHEMA); `capability`, `source`/`generator`, `tokens`,
  `origin` and `error` columns are read when present;
- a folder of any of these (searched recursively, hidden files skipped). In a folder, Parquet files without a
  `spec_json` column (validate's rejected.parquet) and JSON objects that are not specs (funnel.json, LLM cache
  entries) are passed over; a folder where nothing holds a spec is an error.

Every error is a `SpecSourceError` naming the file, and the row or line where there is one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from coworkenv.loading import load_spec
from coworkenv.spec import EnvSpec

SPEC_COLUMN = "spec_json"
SPEC_SUFFIXES = (".json", ".jsonl", ".parquet")
# Top-level keys of which a spec has all; a JSON object in a folder with none of them is some other file.
_SPEC_KEYS = frozenset({"world", "checks", "reference", "turns", "tools"})
_HINT = ("pass a spec JSON file, a folder of them, or Parquet with a spec_json column "
         "(`coworkenv synth --out DIR` writes one)")


class SpecSourceError(ValueError):
    """A spec input that cannot be read: the message names the file (and row or line) and what to do."""


@dataclass(frozen=True)
class SpecRow:
    """One spec as stored, before it is parsed: its JSON text and what the file says about it."""

    text: str  # the spec JSON ("" for a candidate whose generation failed: see `error`)
    where: str  # "FILE", "FILE row N", "FILE line N" or "FILE [N]"
    origin: str  # a stable id of the row: "RELATIVE_PATH#N"
    capability: str | None = None
    source: str | None = None  # "procedural" or the model that wrote it
    tokens: int = 0
    error: str | None = None  # LLM error kind of a failed generation


def spec_files(path: Path) -> list[Path]:
    """The files `read_spec_rows(path)` reads: `path` itself, or the spec files under a folder (sorted)."""
    if not path.exists():
        raise SpecSourceError(f"{path}: no such file or folder; {_HINT}")
    if path.is_file():
        if path.suffix.lower() not in SPEC_SUFFIXES:
            raise SpecSourceError(f"{path}: not a spec file (expected {', '.join(SPEC_SUFFIXES)}); {_HINT}")
        return [path]
    files = sorted(
        p for p in path.rglob("*")
        if p.is_file() and p.suffix.lower() in SPEC_SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )
    if not files:
        raise SpecSourceError(f"{path}: no .json, .jsonl or .parquet files in this folder; {_HINT}")
    return files


def read_spec_rows(path: Path | str) -> list[SpecRow]:
    """Every stored spec under `path` (a file or folder, see the module doc), in file then row order."""
    path = Path(path)
    files = spec_files(path)
    in_folder = path.is_dir()
    rows: list[SpecRow] = []
    for file in files:
        rel = file.relative_to(path).as_posix() if in_folder else file.name
        reader = _parquet_rows if file.suffix.lower() == ".parquet" else _json_rows
        rows.extend(reader(file, rel, in_folder))
    if not rows:
        raise SpecSourceError(f"{path}: no specs found in {len(files)} file(s) (no Parquet file has a "
                              f"{SPEC_COLUMN!r} column and no JSON file holds a spec object); {_HINT}")
    return rows


def read_specs(path: Path | str) -> list[EnvSpec]:
    """Every spec under `path`, parsed and reference-checked (SpecError names the file and row of a bad one).

    Rows of failed generations (an `error`, no spec) are passed over; a folder where only those exist is an
    error.
    """
    rows = [row for row in read_spec_rows(path) if row.error is None]
    if not rows:
        raise SpecSourceError(f"{path}: every row is a failed generation (an 'error' and no spec); {_HINT}")
    specs = []
    for row in rows:
        if not row.text.strip():
            raise SpecSourceError(f"{row.where}: empty {SPEC_COLUMN}; {_HINT}")
        specs.append(load_spec(row.text, source=row.where))
    return specs


# -- Parquet ------------------------------------------------------------------------------------------------------
def _parquet_rows(file: Path, rel: str, in_folder: bool) -> list[SpecRow]:
    try:
        schema = pq.read_schema(file)
    except (OSError, pa.ArrowException) as exc:
        raise SpecSourceError(f"{file}: not a readable Parquet file ({_first_line(exc)}); rewrite it, or {_HINT}") from None
    if SPEC_COLUMN not in schema.names:
        if in_folder:
            return []  # another table beside the specs, e.g. validate's rejected.parquet
        raise SpecSourceError(f"{file}: no {SPEC_COLUMN!r} column (columns: {', '.join(schema.names) or 'none'}); "
                              f"{_HINT}")
    kind = schema.field(SPEC_COLUMN).type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)):
        raise SpecSourceError(f"{file}: column {SPEC_COLUMN!r} holds {kind}, not spec JSON text (string); {_HINT}")
    try:
        records = pq.read_table(file).to_pylist()
    except (OSError, pa.ArrowException) as exc:
        raise SpecSourceError(f"{file}: damaged Parquet data ({_first_line(exc)}); rewrite it, or {_HINT}") from None
    return [
        SpecRow(
            text=record.get(SPEC_COLUMN) or "",
            where=f"{file} row {i}",
            origin=_text(record.get("origin")) or f"{rel}#{i}",
            capability=_text(record.get("capability")),
            source=_text(record.get("source")) or _text(record.get("generator")),
            tokens=record["tokens"] if isinstance(record.get("tokens"), int) else 0,
            error=_text(record.get("error")),
        )
        for i, record in enumerate(records)
    ]


# -- JSON ---------------------------------------------------------------------------------------------------------
def _json_rows(file: Path, rel: str, in_folder: bool) -> list[SpecRow]:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecSourceError(f"{file}: cannot read ({exc}); {_HINT}") from None
    if file.suffix.lower() == ".jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                value = _decode(line, f"{file} line {number}")
                rows.append(_json_row(value, f"{file} line {number}", f"{rel}#{number}", line))
        return rows
    value = _decode(text, str(file))
    if isinstance(value, list):
        if in_folder and not any(isinstance(item, dict) and _SPEC_KEYS & item.keys() for item in value):
            return []  # a list of something else (a summary, a report)
        return [_json_row(item, f"{file} [{i}]", f"{rel}#{i}", None) for i, item in enumerate(value)]
    if in_folder and not (isinstance(value, dict) and _SPEC_KEYS & value.keys()):
        return []  # funnel.json, a report, an LLM cache entry: not a spec
    return [_json_row(value, str(file), rel, text)]


def _decode(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecSourceError(f"{where}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def _json_row(value: Any, where: str, origin: str, text: str | None) -> SpecRow:
    if not isinstance(value, dict):
        raise SpecSourceError(f"{where}: a spec is a JSON object, got {type(value).__name__}; {_HINT}")
    capability = value.get("capability")
    return SpecRow(
        text=text if text is not None else orjson.dumps(value).decode(),
        where=where, origin=origin, capability=capability if isinstance(capability, str) else None,
        source=_text((value.get("metadata") or {}).get("generator")) if isinstance(value.get("metadata"), dict)
        else None,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
