"""Specs as Parquet: one row per spec with searchable columns and the full spec JSON (lossless)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from coworkenv.atomic import atomic_write
from coworkenv.loading import parse_spec
from coworkenv.spec import EnvSpec

SPECS_SCHEMA = pa.schema(
    [
        pa.field("env_id", pa.string(), nullable=False),
        pa.field("capability", pa.string(), nullable=False),
        pa.field("difficulty", pa.int8(), nullable=False),
        pa.field("multi_turn", pa.bool_(), nullable=False),
        pa.field("apps", pa.list_(pa.string()), nullable=False),
        pa.field("generator", pa.string(), nullable=False),
        pa.field("seed", pa.int64(), nullable=True),
        pa.field("spec_json", pa.string(), nullable=False),
    ]
)


def specs_table(specs: Iterable[EnvSpec]) -> pa.Table:
    """The specs as an Arrow table with SPECS_SCHEMA."""
    rows = [
        {
            "env_id": s.id,
            "capability": s.capability,
            "difficulty": s.metadata.difficulty,
            "multi_turn": s.multi_turn,
            "apps": list(s.metadata.apps),
            "generator": s.metadata.generator,
            "seed": s.metadata.seed,
            "spec_json": s.to_json(),
        }
        for s in specs
    ]
    return pa.Table.from_pylist(rows, schema=SPECS_SCHEMA)


def write_specs_parquet(specs: Iterable[EnvSpec], path: Path | str) -> Path:
    """Write specs to a Parquet file atomically (a reader sees the old file or the whole new one)."""
    path = Path(path)
    table = specs_table(specs)
    atomic_write(path, lambda handle: pq.write_table(table, handle, compression="zstd"))
    return path


def read_specs_parquet(path: Path | str) -> list[EnvSpec]:
    """Read specs written by `write_specs_parquet` (schema-checked; SpecError names the row on bad JSON)."""
    table = pq.read_table(path, columns=["env_id", "spec_json"])
    specs = []
    for i, (env_id, text) in enumerate(
        zip(table.column("env_id").to_pylist(), table.column("spec_json").to_pylist(), strict=True)
    ):
        specs.append(parse_spec(text, source=f"{path} row {i} ({env_id})"))
    return specs
