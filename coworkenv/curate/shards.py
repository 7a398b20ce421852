"""The writing of curated trajectory rows as TRL SFT shards `<split>-00000-of-0000N.parquet`, atomically, in bounded
memory (rows read with the trajectories stage's `TrajectorySource`, written with the SFT stage's `ShardWriter`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from coworkenv.atomic import files_together, remove_file
from coworkenv.store.stages import (
    SFT_SCHEMA,
    SFT_SOURCE_COLUMNS,
    ShardWriter,
    TrajectorySource,
    sft_rows,
    shard_set_mark,
    shard_split,
)

META_COLUMNS = ("record_id", "env_id", "capability", "passed", "malformed_calls", "tool_errors", "tool_calls",
                "transcript_chars", "transcript_hash")
# Every column curation reads: checked in every file before the scan starts.
NEEDED_COLUMNS = (*META_COLUMNS, *SFT_SOURCE_COLUMNS, "request")


def selected_rows(source: TrajectorySource, selection: np.ndarray, code: int) -> pa.Table:
    """The rows whose selection code is `code`, as one table of SFT source columns."""
    parts, offset = [], 0
    for batch in source.batches(SFT_SOURCE_COLUMNS):
        mask = selection[offset:offset + batch.num_rows] == code
        offset += batch.num_rows
        if mask.any():
            parts.append(pa.Table.from_batches([batch]).filter(pa.array(mask)))
    if not parts:
        return pa.schema([SFT_SCHEMA.field(c) for c in SFT_SOURCE_COLUMNS]).empty_table()
    return pa.concat_tables(parts)


def envs_in_several_splits(splits: Mapping[str, pa.Table]) -> list[str]:
    """Env ids whose rows sit in more than one split (a leak between train and evaluation; none after curation)."""
    seen: dict[str, str] = {}
    shared: set[str] = set()
    for split, table in sorted(splits.items()):
        for env_id in set(table.column("env_id").to_pylist()):
            if seen.setdefault(env_id, split) != split:
                shared.add(env_id)
    return sorted(shared)


def _identities(source: TrajectorySource, selection: np.ndarray, code: int) -> Iterator[tuple[object, object]]:
    """(record id, transcript hash) of the rows whose selection code is `code`, in order: what marks a write."""
    offset = 0
    for batch in source.batches(("record_id", "transcript_hash")):
        mask = selection[offset:offset + batch.num_rows] == code
        offset += batch.num_rows
        if mask.any():
            chosen = pa.Table.from_batches([batch]).filter(pa.array(mask))
            yield from zip(chosen.column(0).to_pylist(), chosen.column(1).to_pylist(), strict=True)


def write_selected_shards(
    source: TrajectorySource, selection: np.ndarray, split_names: Sequence[str], out_dir: Path, max_rows: int
) -> list[Path]:
    """Stream the selected rows into `<split>-NNNNN-of-NNNNN.parquet` files of at most `max_rows` rows each.

    Shards of these splits left over from an earlier run with another shard count are removed.
    """
    if max_rows < 1:
        raise ValueError(f"max_rows_per_shard must be >= 1, got {max_rows}")
    out_dir.mkdir(parents=True, exist_ok=True)
    # As a set: a rerun stopped by a full disk, or by an input file replaced under it, leaves the earlier shards.
    with files_together():
        return _write_shards(source, selection, split_names, out_dir, max_rows)


def _write_shards(source: TrajectorySource, selection: np.ndarray, split_names: Sequence[str], out_dir: Path,
                  max_rows: int) -> list[Path]:
    totals = np.bincount(selection[selection >= 0], minlength=len(split_names)) if selection.size else \
        np.zeros(len(split_names), dtype=np.int64)
    marks = [shard_set_mark(s, max_rows, _identities(source, selection, i)) for i, s in enumerate(split_names)]
    writers = [ShardWriter(out_dir, s, int(totals[i]), max_rows, marks[i]) for i, s in enumerate(split_names)]
    try:
        offset = 0
        for batch in source.batches(SFT_SOURCE_COLUMNS):
            codes = selection[offset:offset + batch.num_rows]
            offset += batch.num_rows
            table = pa.Table.from_batches([batch])
            for code, writer in enumerate(writers):
                mask = codes == code
                if mask.any():
                    writer.add(sft_rows(table.filter(pa.array(mask)), writer.split))
        paths = [p for w in writers for p in w.finish()]
    except BaseException:
        for writer in writers:
            writer.abort()
        raise
    current = {p.name for p in paths}
    for old in out_dir.glob("*.parquet"):
        if shard_split(old.name) in split_names and old.name not in current:
            remove_file(old)
    return paths

