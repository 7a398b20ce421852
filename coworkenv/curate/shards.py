"""Trajectory rows in a fixed order (Parquet files streamed batch by batch, or a table in memory), and the
writing of selected rows as TRL SFT shards `<split>-00000-of-0000N.parquet`, atomically, in bounded memory.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from coworkenv.rollout.export import TRL_SCHEMA
from coworkenv.rollout.record import check_trajectory_file, trajectory_files

TRL_SOURCE_COLUMNS = ("messages", "tools", "env_id", "capability", "turns")
META_COLUMNS = ("record_id", "env_id", "capability", "passed", "malformed_calls", "tool_errors", "tool_calls",
                "transcript_chars", "transcript_hash")
ROW_GROUP_ROWS = 4096
_SHARD = re.compile(r"^(?P<split>.+)-\d{5}-of-\d{5}\.parquet$")


class TrajectorySource:
    """Trajectory rows in one fixed order, read lazily from Parquet files or held as an Arrow table."""

    def __init__(self, data: Path | str | pa.Table | pl.DataFrame | pl.LazyFrame) -> None:
        self.files: list[Path] = []
        self.table: pa.Table | None = None
        if isinstance(data, Path | str):
            self.files = trajectory_files(Path(data))
            if not self.files:
                raise FileNotFoundError(f"{data}: no .parquet trajectory files found; run `coworkenv rollout` first")
            # Every file, not only the first: a damaged or foreign file is named before the scan trips on it.
            needed = (*META_COLUMNS, *TRL_SOURCE_COLUMNS, "request")
            names = set.intersection(*(set(check_trajectory_file(f, needed).names) for f in self.files))
        else:
            if isinstance(data, pl.LazyFrame):
                data = data.collect()
            self.table = data.to_arrow() if isinstance(data, pl.DataFrame) else data
            names = set(self.table.column_names)
        missing = [c for c in (*META_COLUMNS, *TRL_SOURCE_COLUMNS, "request") if c not in names]
        if missing:
            raise ValueError(f"trajectories lack columns {', '.join(missing)}; write them with "
                             "coworkenv.rollout.trajectories_table or `coworkenv rollout`")

    def lazy(self) -> pl.LazyFrame:
        """All rows with a `row` index (their position in this source's order)."""
        frame = pl.scan_parquet(self.files) if self.files else pl.from_arrow(self.table).lazy()  # type: ignore[union-attr]
        return frame.with_row_index("row")

    def batches(self, columns: Sequence[str], batch_rows: int = 8192) -> Iterator[pa.RecordBatch]:
        """The given columns, batch by batch, in row order."""
        if self.table is not None:
            yield from self.table.select(list(columns)).to_batches(max_chunksize=batch_rows)
            return
        for path in self.files:
            yield from pq.ParquetFile(path).iter_batches(batch_size=batch_rows, columns=list(columns))


def shard_name(split: str, index: int, count: int) -> str:
    return f"{split}-{index:05d}-of-{count:05d}.parquet"


def trl_batch(batch: pa.RecordBatch | pa.Table, split: str) -> pa.Table:
    """Trajectory rows as TRL SFT rows of `split`."""
    table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
    columns = [table.column(c) for c in TRL_SOURCE_COLUMNS]
    columns.append(pa.array([split] * table.num_rows, pa.string()))
    return pa.Table.from_arrays(columns, schema=TRL_SCHEMA)


def selected_rows(source: TrajectorySource, selection: np.ndarray, code: int) -> pa.Table:
    """The rows whose selection code is `code`, as one table of TRL source columns."""
    parts, offset = [], 0
    for batch in source.batches(TRL_SOURCE_COLUMNS):
        mask = selection[offset:offset + batch.num_rows] == code
        offset += batch.num_rows
        if mask.any():
            parts.append(pa.Table.from_batches([batch]).filter(pa.array(mask)))
    if not parts:
        return pa.schema([TRL_SCHEMA.field(c) for c in TRL_SOURCE_COLUMNS]).empty_table()
    return pa.concat_tables(parts)


class _ShardWriter:
    """Writes one split's rows into its shards in order, flushing row groups of bounded size."""

    def __init__(self, out_dir: Path, split: str, total: int, max_rows: int) -> None:
        self.out_dir, self.split, self.max_rows = out_dir, split, max_rows
        self.count = math.ceil(total / max_rows)  # an empty split gets no shard
        self.index = 0
        self.in_shard = 0
        self.pending: list[pa.Table] = []
        self.pending_rows = 0
        self.paths: list[Path] = []
        self._writer: pq.ParquetWriter | None = None
        self._temp: Path | None = None

    def add(self, table: pa.Table) -> None:
        while table.num_rows:
            take = min(table.num_rows, self.max_rows - self.in_shard - self.pending_rows)
            self.pending.append(table.slice(0, take))
            self.pending_rows += take
            table = table.slice(take)
            if self.in_shard + self.pending_rows >= self.max_rows:
                self._flush()
                self._close_shard()
            elif self.pending_rows >= ROW_GROUP_ROWS:
                self._flush()

    def _flush(self) -> None:
        if not self.pending_rows:
            return
        if self._writer is None:
            fd, name = tempfile.mkstemp(prefix=".tmp-", suffix=".parquet", dir=self.out_dir)
            os.close(fd)
            self._temp = Path(name)
            self._writer = pq.ParquetWriter(self._temp, TRL_SCHEMA, compression="zstd")
        self._writer.write_table(pa.concat_tables(self.pending))
        self.in_shard += self.pending_rows
        self.pending, self.pending_rows = [], 0

    def _close_shard(self) -> None:
        assert self._writer is not None and self._temp is not None
        self._writer.close()
        with self._temp.open("rb") as handle:
            os.fsync(handle.fileno())
        final = self.out_dir / shard_name(self.split, self.index, self.count)
        os.replace(self._temp, final)
        self.paths.append(final)
        self._writer, self._temp = None, None
        self.index += 1
        self.in_shard = 0

    def finish(self) -> list[Path]:
        self._flush()
        if self._writer is not None:
            self._close_shard()
        return self.paths

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)


def write_selected_shards(
    source: TrajectorySource, selection: np.ndarray, split_names: Sequence[str], out_dir: Path, max_rows: int
) -> list[Path]:
    """Stream the selected rows into `<split>-NNNNN-of-NNNNN.parquet` files of at most `max_rows` rows each.

    Shards of these splits left over from an earlier run with another shard count are removed.
    """
    if max_rows < 1:
        raise ValueError(f"max_rows_per_shard must be >= 1, got {max_rows}")
    out_dir.mkdir(parents=True, exist_ok=True)
    totals = np.bincount(selection[selection >= 0], minlength=len(split_names)) if selection.size else \
        np.zeros(len(split_names), dtype=np.int64)
    writers = [_ShardWriter(out_dir, s, int(totals[i]), max_rows) for i, s in enumerate(split_names)]
    try:
        offset = 0
        for batch in source.batches(TRL_SOURCE_COLUMNS):
            codes = selection[offset:offset + batch.num_rows]
            offset += batch.num_rows
            table = pa.Table.from_batches([batch])
            for code, writer in enumerate(writers):
                mask = codes == code
                if mask.any():
                    writer.add(trl_batch(table.filter(pa.array(mask)), writer.split))
        paths = [p for w in writers for p in w.finish()]
    except BaseException:
        for writer in writers:
            writer.abort()
        raise
    current = {p.name for p in paths}
    for old in out_dir.glob("*.parquet"):
        match = _SHARD.match(old.name)
        if match and match.group("split") in split_names and old.name not in current:
            old.unlink()
    return paths

