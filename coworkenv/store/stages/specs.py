"""The specs stage: candidate specs before validation (`coworkenv synth`, the `task_specs` asset), its one schema,
its one writer, and the one spec reader of every command (a spec JSON file, a folder of them, or Parquet).

Accepted inputs (the same for `env run`, `validate`, `rollout`, `eval` and `train rl`):
- a `.json` file holding one spec object, or a list of them; a spec may be plain or sealed
  (`coworkenv.spec_seal`: what the stages below store), and `load_spec` checks a sealed one's seal;
- a `.jsonl` file, one spec per line;
- a `.parquet` file with a string `spec_json` column: the specs stage (SPECS_SCHEMA), the envs stage (its accepted
  envs) or a specs file of an older release (its `generator` column is read as `source`); `capability`, `source`,
  `tokens`, `origin` and `error` columns are read when present;
- a folder of any of these (searched recursively, hidden files skipped). In a folder, Parquet files without a
  `spec_json` column (validate's rejected.parquet) and JSON objects that are not specs (funnel.json, LLM cache
  entries) are passed over; a folder where nothing holds a spec is an error.

Every error is a `SpecSourceError` naming the file, and the row or line where there is one. A spec of a schema
version this coworkenv does not read (a newer coworkenv's, one edited by hand: `schema_version_problem`) is one: the
set is refused before any of it is used, so that no reader takes it for a defect to repair into this version's terms
(validate's repair loop would rewrite it as version 2, losing what the newer version meant). Only a model's raw
payload (an unsealed Parquet row whose source is a model, written by `synth --llm`) is left to the gates, whose
repair loop is there for a model's mistakes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import orjson
import pyarrow as pa

from coworkenv.atomic import FileTooBigError, NotRegularFileError, read_regular_file, settle_before_reading
from coworkenv.loading import load_spec
from coworkenv.spec import SCHEMA_VERSION, SPEC_MIGRATIONS, EnvSpec, schema_version_problem
from coworkenv.spec_seal import SPEC_KEY, is_sealed, sealed_payload
from coworkenv.spec_seal_write import stored_spec_json
from coworkenv.store.stages._shard_sets import shard_set_problem
from coworkenv.store.stages._stage import Stage, StageError, missing_path

SPEC_COLUMN = "spec_json"
SPEC_SUFFIXES = (".json", ".jsonl", ".parquet")
# Top-level keys of which a spec has all; a JSON object in a folder with none of them is some other file.
_SPEC_KEYS = frozenset({"world", "checks", "reference", "turns", "tools"})
# A JSON or JSON Lines file of specs is read whole, and held twice while it is decoded: a spec is some 5-30 kB, so
# this is some 10,000 specs. A file far past it is not one (a disk image, a log, a data export under a .json name):
# read, a 3 GiB file took 6.4 GB of memory before "not valid JSON", and on a machine with less a MemoryError
# traceback (or the kernel's OOM kill, without a word). Parquet (what synth and validate write) has no such limit.
MAX_SPEC_JSON_BYTES = 256 << 20
_HINT = ("pass a spec JSON file, a folder of them, or Parquet with a spec_json column "
         "(`coworkenv synth --out DIR` writes one)")


# One row per candidate: a procedural spec, an LLM's raw payload, or a failed generation (`error`, no spec).
SPECS_SCHEMA = pa.schema([
    ("env_id", pa.string()),  # null when the payload is not (yet) a valid spec
    ("capability", pa.string()),
    ("source", pa.string()),  # the generator ("procedural:<generator>@<version>") or the model that wrote it
    ("origin", pa.string()),  # a stable id: capability and seed, or the generation request
    ("tokens", pa.int64()),
    ("error", pa.string()),  # LLM error kind of a failed generation
    ("spec_json", pa.string()),
])
SPECS = Stage("specs", SPECS_SCHEMA, hint=_HINT, required=(SPEC_COLUMN,), renamed={"generator": "source"})


class SpecSourceError(StageError):
    """A spec input that cannot be read: the message names the file (and row or line) and what to do."""


class SpecCandidate(Protocol):
    """What the specs stage stores of a candidate (`coworkenv.validate.Candidate` is one)."""

    @property
    def capability(self) -> str: ...
    @property
    def payload(self) -> EnvSpec | str: ...
    @property
    def source(self) -> str: ...
    @property
    def origin(self) -> str: ...
    @property
    def tokens(self) -> int: ...
    @property
    def error(self) -> str | None: ...


def specs_table(candidates: Iterable[SpecCandidate]) -> pa.Table:
    """Candidates as a specs-stage table: a spec is stored as its sealed file (lossless; see `stored_spec_json`), a
    raw payload as it came."""
    return SPECS.table({
        "env_id": c.payload.id if isinstance(c.payload, EnvSpec) else None,
        "capability": c.capability,
        "source": c.source,
        "origin": c.origin,
        "tokens": c.tokens,
        "error": c.error,
        "spec_json": stored_spec_json(c.payload) if isinstance(c.payload, EnvSpec) else c.payload,
    } for c in candidates)


def write_specs(candidates: Iterable[SpecCandidate], path: Path | str) -> Path:
    """Write candidates to one specs-stage Parquet file (atomic, deterministic bytes)."""
    return SPECS.write(specs_table(candidates), path)


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
    version_problem: str | None = None  # a schema version this coworkenv does not read (`schema_version_problem`)


def spec_files(path: Path) -> list[Path]:
    """The files `read_spec_rows(path)` reads: `path` itself, or the spec files under a folder (sorted)."""
    if not path.exists():
        raise SpecSourceError(f"{path}: {missing_path(path)}; {_HINT}")
    try:
        settle_before_reading(path)  # a set whose writer was killed while placing it (validate's): completed first
    except ValueError as exc:
        raise SpecSourceError(str(exc)) from None
    if not path.is_file() and not path.is_dir():  # a named pipe, a device: no folder of specs
        raise SpecSourceError(f"{path}: {missing_path(path)}; {_HINT}")
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
    problem = shard_set_problem(files, "specs")  # a published version's shards, one of them gone
    if problem is not None:
        raise SpecSourceError(problem)
    return files


def read_spec_rows(path: Path | str, *, allow_empty: bool = False) -> list[SpecRow]:
    """Every stored spec under `path` (a file or folder, see the module doc), in file then row order; finding none
    is an error unless `allow_empty` (a stage file of zero rows)."""
    path = Path(path)
    files = spec_files(path)
    in_folder = path.is_dir()
    rows: list[SpecRow] = []
    for file in files:
        rel = file.relative_to(path).as_posix() if in_folder else file.name
        reader = _parquet_rows if file.suffix.lower() == ".parquet" else _json_rows
        rows.extend(reader(file, rel, in_folder))
    refuse_other_versions(path, rows)
    if not rows and not allow_empty:
        raise SpecSourceError(f"{path}: no specs found in {len(files)} file(s) (no Parquet file has a "
                              f"{SPEC_COLUMN!r} column and no JSON file holds a spec object); {_HINT}")
    return rows


def refuse_other_versions(path: Path, rows: list[SpecRow]) -> None:
    """SpecSourceError naming every row of a schema version this coworkenv does not read, and what to do; before
    any of the set is used (a bulk reader that took the rest would leave a user's newer spec out of its output, and
    validate's repair loop would rewrite it as this version)."""
    other = [row for row in rows if row.version_problem is not None]
    if not other:
        return
    first = other[0]
    more = ""
    if len(other) > 1:
        shown = ", ".join(row.where for row in other[1:4]) + (f" and {len(other) - 4} more" if len(other) > 4 else "")
        more = f"; so are {len(other) - 1} more: {shown}"
    raise SpecSourceError(f"invalid environment spec {first.where}: schema_version: {first.version_problem}{more}; "
                          f"no spec under {path} was used, and none was changed")


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
        names = SPECS.file_schema(file).names
    except StageError as exc:
        raise SpecSourceError(str(exc)) from None
    if SPEC_COLUMN not in names and in_folder:
        return []  # another table beside the specs, e.g. validate's rejected.parquet
    try:
        records = SPECS.read(file).to_pylist()
    except StageError as exc:
        raise SpecSourceError(str(exc)) from None
    return [
        SpecRow(
            text=record[SPEC_COLUMN] or "",
            where=f"{file} row {i}",
            origin=_text(record["origin"]) or f"{rel}#{i}",
            capability=_text(record["capability"]),
            source=_text(record["source"]),
            tokens=record["tokens"] or 0,
            error=_text(record["error"]),
            version_problem=_stored_version_problem(record[SPEC_COLUMN] or "", _text(record["source"])),
        )
        for i, record in enumerate(records)
    ]


# The opening of a spec as coworkenv writes it (`schema_version` is its first field), plain or in a sealed file.
_READ_OPENINGS = tuple(f'{{"schema_version":"{v}",' for v in sorted({*SPEC_MIGRATIONS, SCHEMA_VERSION}))


def _stored_version_problem(text: str, source: str | None) -> str | None:
    """`schema_version_problem` of a Parquet row's spec text; None for a model's raw payload (unsealed, its source a
    model: a mistake of the model's, which the gates report and the repair loop is for) and for text that is not a
    JSON object (the gates say what it is). A spec as coworkenv writes it is known by its opening, unparsed."""
    sealed = is_sealed(text)
    if not sealed and source is not None and not source.startswith("procedural"):
        return None
    body = text[text.find(SPEC_KEY.decode()) + len(SPEC_KEY):] if sealed and SPEC_KEY.decode() in text else text
    if body.startswith(_READ_OPENINGS):
        return None
    try:
        value = sealed_payload(orjson.loads(text))
    except orjson.JSONDecodeError:
        return None
    return schema_version_problem(value) if isinstance(value, dict) else None


# -- JSON ---------------------------------------------------------------------------------------------------------
def _json_rows(file: Path, rel: str, in_folder: bool) -> list[SpecRow]:
    try:  # checked on the file opened, not on its path: one replaced after a look at it was read all the same
        data = read_regular_file(file, MAX_SPEC_JSON_BYTES)
    except FileTooBigError as exc:
        raise SpecSourceError(_too_big(file, f"is {_size(exc.size)}")) from None
    except NotRegularFileError as exc:
        raise SpecSourceError(f"{file}: {exc.kind}, not a file: nothing was read from it (it would wait or never "
                              f"end); {_HINT}") from None
    except OSError as exc:
        raise SpecSourceError(f"{file}: cannot read ({exc.strerror or exc}); {_HINT}") from None
    except MemoryError:  # under the limit, but more than this machine (or its memory limit) has free
        try:
            size = file.stat().st_size
        except OSError:
            size = MAX_SPEC_JSON_BYTES
        raise SpecSourceError(_too_big(file, f"({_size(size)}) does not fit in the free memory")) from None
    try:
        text = data.decode("utf-8-sig")  # a byte order mark (some editors write one) is not part of the JSON
    except UnicodeDecodeError as exc:
        at_line = data.count(b"\n", 0, exc.start) + 1
        raise SpecSourceError(f"{file}: not UTF-8 text (byte {exc.start}, line {at_line}: {exc.reason}); save the file "
                              "as UTF-8") from None
    if file.suffix.lower() == ".jsonl":
        rows = []
        # Lines end at "\n" only: str.splitlines would also cut at U+2028 and other separators, which JSON
        # writers (orjson) leave raw inside strings.
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                value = _decode(line, f"{file} line {number}")
                rows.append(_json_row(value, f"{file} line {number}", f"{rel}#{number}", line))
        return rows
    value = _decode(text, str(file))
    if isinstance(value, list):
        if in_folder and not any(_is_spec_object(item) for item in value):
            return []  # a list of something else (a summary, a report)
        return [_json_row(item, f"{file} [{i}]", f"{rel}#{i}", None) for i, item in enumerate(value)]
    if in_folder and not _is_spec_object(value):
        return []  # funnel.json, a report, an LLM cache entry: not a spec
    return [_json_row(value, str(file), rel, text)]


def _size(size: int) -> str:
    return f"{size / (1 << 30):.1f} GiB" if size >= 1 << 30 else f"{size / (1 << 20):.0f} MiB"


def _too_big(file: Path, what: str) -> str:
    return (f"{file}: {what}, and a JSON file of specs is kilobytes to a few megabytes (the limit is "
            f"{MAX_SPEC_JSON_BYTES >> 20} MiB, some 10,000 specs): is it the file you meant, or another file under a "
            ".json name? For more specs, pass Parquet with a spec_json column (as synth and validate write) or a "
            "folder of smaller files")


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value:
            raise _DuplicateKey(key)
        value[key] = item
    return value


def _decode(text: str, where: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise SpecSourceError(f"{where}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except _DuplicateKey as exc:
        # JSON readers disagree on which of two values wins, so neither is taken silently.
        raise SpecSourceError(f"{where}: the key {exc.args[0]!r} appears twice in one JSON object; keep one of "
                              "them") from None
    except RecursionError:
        raise SpecSourceError(f"{where}: JSON nested too deeply to read; {_HINT}") from None


def _is_spec_object(value: Any) -> bool:
    """A spec's JSON object, plain or sealed (a folder's other JSON objects are passed over)."""
    inner = sealed_payload(value)
    return isinstance(inner, dict) and bool(_SPEC_KEYS & inner.keys())


def _json_row(value: Any, where: str, origin: str, text: str | None) -> SpecRow:
    if not isinstance(value, dict):
        raise SpecSourceError(f"{where}: a spec is a JSON object, got {type(value).__name__}; {_HINT}")
    spec = sealed_payload(value)  # a sealed file's text is kept whole: load_spec checks its seal
    capability = spec.get("capability")
    return SpecRow(
        text=text if text is not None else orjson.dumps(value).decode(),
        where=where, origin=origin, capability=capability if isinstance(capability, str) else None,
        source=_text((spec.get("metadata") or {}).get("generator")) if isinstance(spec.get("metadata"), dict)
        else None,
        version_problem=schema_version_problem(spec),
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
