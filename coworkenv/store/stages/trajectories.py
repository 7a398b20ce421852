"""The trajectories stage: canonical episode records (`coworkenv rollout`, the `teacher_trajectories` asset, eval
and RL rollouts), read whole as records or streamed column by column for curation.

The row codec and schema are `coworkenv.rollout.record`'s; this module is where files of them are written and read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from coworkenv.rollout.record import (
    TRAJECTORY_SCHEMA,
    Timings,
    TrajectoryRecord,
    record_from_row,
    trajectories_table,
)
from coworkenv.store._parquet import StoredTable, parquet_file, read_parquet, whole_table
from coworkenv.store.stages._shard_sets import shard_set_problem
from coworkenv.store.stages._stage import (
    WRITTEN_BY,
    Stage,
    StageError,
    _compatible,
    file_written_by,
    first_line,
    missing_path,
)
from coworkenv.store.stages.episode_writers import (
    EPISODE_WRITERS,
    EVAL_REPORT,
    RL,
    ROLLOUT,
    episode_output_problem,
    other_stage_files,
    other_stage_problem,
    parquet_files,
)
from coworkenv.world import content_hash

__all__ = [
    "EPISODE_WRITERS", "EVAL_REPORT", "RL_ROLLOUTS", "TRAJECTORIES", "TRAJECTORY_SCHEMA", "TrajectorySource",
    "check_trajectory_file", "episode_output_problem", "mark_episode_files", "other_stage_files", "other_stage_problem",
    "read_trajectories", "refuse_other_stages",
    "stored_trajectories_table", "trajectory_env_ids", "trajectory_files", "without_measurements",
    "write_trajectories",
]

# Columns every trajectory row has a value in: rows without them cannot be split, deduplicated or attributed.
IDENTITY_COLUMNS = ("env_id",)
_HINT = "write trajectories with `coworkenv rollout` (or coworkenv.store.stages.write_trajectories)"
# Every file says who wrote it (`episode_writers`): the teacher's episodes, an eval's or a student's RL episodes.
TRAJECTORIES = Stage("trajectories", TRAJECTORY_SCHEMA, hint=_HINT, required=tuple(TRAJECTORY_SCHEMA.names),
                     writers=tuple(EPISODE_WRITERS))
# A student's RL episodes: trajectory records plus the GRPO step that produced them (the `rl_rollouts` asset).
RL_ROLLOUTS = Stage("rl_rollouts", TRAJECTORY_SCHEMA.append(pa.field("rl_step", pa.int32())),
                    hint="rl_rollouts are written by the RL assets (assets/rl.py)",
                    required=(*TRAJECTORY_SCHEMA.names, "rl_step"), writers=(RL,))


def without_measurements(record: TrajectoryRecord) -> TrajectoryRecord:
    """The record without clock readings, so that equal episodes store byte-identical Parquet (same version)."""
    return replace(record, timings=Timings(), started_at="",
                   steps=[replace(step, model_s=0.0, env_s=0.0) for step in record.steps])


def stored_trajectories_table(records: Iterable[TrajectoryRecord]) -> pa.Table:
    """The table the pipeline stores: records without clock readings (which go to run metadata instead)."""
    return trajectories_table(without_measurements(r) for r in records)


def trajectory_files(path: Path, written_by: str | None = ROLLOUT) -> list[Path]:
    """The Parquet files of one writer's episodes: `path` itself, or every `*.parquet` below it, sorted, less the
    files of other writers and stages (`other_stage_files`: an eval's episodes, RL rollouts, specs, shards); every
    file with `written_by` None."""
    if not path.is_file() and not path.is_dir():
        raise FileNotFoundError(f"{path}: {missing_path(path)}; pass a trajectories Parquet file or folder")
    files = parquet_files(path)
    others = other_stage_files(path, files, written_by) if written_by is not None else {}
    files = [file for file in files if file not in others]
    problem = shard_set_problem(files, "episodes")  # a published version's shards, one of them gone
    if problem is not None:
        raise StageError(problem)
    return files


def trajectory_env_ids(file: Path) -> list[str] | None:
    """The `env_id` of every episode in one trajectory file, in order; None where the file does not read as one (its
    readers name what is wrong with it)."""
    rows = trajectory_columns(file, ("env_id",))
    return None if rows is None else [str(row["env_id"]) for row in rows]


def trajectory_columns(file: Path, columns: Sequence[str]) -> list[dict[str, Any]] | None:
    """The given columns of every episode in one trajectory file, a dict per row, in order; None where the file does
    not read as one or lacks a column (its readers name what is wrong with it)."""
    try:
        return list(parquet_file(file).read(columns=list(columns)).to_pylist())
    except (OSError, KeyError, ValueError, pa.ArrowException):
        return None


def damaged_trajectory_file(path: Path) -> Path | None:
    """The first trajectory file under `path` whose pages do not read back, or None: for naming the file when a
    scan over many files fails without saying where (read one row group at a time: memory stays bounded)."""
    try:
        files = trajectory_files(Path(path))
    except FileNotFoundError:
        return None
    for file in files:
        try:
            parquet = parquet_file(file)
            for index in range(parquet.num_row_groups):
                parquet.read_row_group(index)
        except (OSError, pa.ArrowException):
            return file
    return None


def check_trajectory_file(path: Path, required: Sequence[str] = ()) -> pa.Schema:
    """The schema of a trajectory Parquet file; ValueError naming the file when it is not readable Parquet, lacks
    a `required` column, or has a column of another type than TRAJECTORY_SCHEMA's."""
    schema = TRAJECTORIES.file_schema(path)
    missing = [name for name in required if name not in schema.names]
    if missing:
        raise StageError(f"{path}: not a trajectories file, no column {', '.join(missing)}; {_HINT}")
    for name in schema.names:
        if name in TRAJECTORY_SCHEMA.names:
            want, got = TRAJECTORY_SCHEMA.field(name).type, schema.field(name).type
            if not _compatible(got, want):
                raise StageError(f"{path}: column {name!r} holds {got}, a trajectories file has {want}; {_HINT}")
    identity = [name for name in IDENTITY_COLUMNS if name in schema.names]
    if identity:
        try:
            table = parquet_file(path).read(columns=identity)  # small columns: cheap next to the transcripts
        except (OSError, pa.ArrowException) as exc:
            raise StageError(f"{path}: damaged Parquet data ({first_line(exc)}); {_HINT}") from None
        for name in identity:
            if table.column(name).null_count:
                raise StageError(f"{path}: {table.column(name).null_count} of {table.num_rows} rows have no "
                                 f"{name}; every trajectory names its env; {_HINT}")
    return schema


def read_trajectories(source: Path | str | StoredTable | pa.Table, written_by: str = ROLLOUT) -> list[TrajectoryRecord]:
    """Records from a table, a Parquet file, or a folder of Parquet files (a bad file is named in the error); of a
    file or folder, only `written_by`'s episodes (the teacher's by default): another writer's file is refused."""
    if isinstance(source, pa.Table):
        table = source
    else:
        path = source.path if isinstance(source, StoredTable) else Path(source)
        refuse_other_stages(path, written_by)
        files = trajectory_files(path, written_by)
        for file in files:
            check_trajectory_file(file, TRAJECTORY_SCHEMA.names)
        # Read with the current schema: struct fields added since (a check's role and score) read as null.
        expected = source.content_hash if isinstance(source, StoredTable) else None
        return [record for f in files for record in _file_records(f, _read_file(f, expected if f == path else None))]
    missing = [n for n in TRAJECTORY_SCHEMA.names if n not in table.column_names]
    if missing:
        raise StageError(f"not a trajectories table: missing columns {', '.join(missing)} (write it with "
                         "trajectories_table or `coworkenv rollout`)")
    return [record_from_row(row) for row in table.to_pylist()]


def _file_records(path: Path, table: pa.Table) -> list[TrajectoryRecord]:
    """The records of one file's table; a value a damaged byte made unreadable (a JSON text cut, a list read as
    none) named with the file, not raised from deep inside the conversion as a traceback."""
    try:
        return [record_from_row(row) for row in table.to_pylist()]
    except (ValueError, TypeError, KeyError) as exc:  # json.JSONDecodeError is a ValueError
        raise StageError(f"{path}: damaged trajectory data ({type(exc).__name__}: {first_line(exc)}); {_HINT}"
                         ) from None


def _read_file(path: Path, content_hash: str | None = None) -> pa.Table:
    data = TRAJECTORIES.checked_bytes(path, content_hash)  # once, checked: a stored file's name records its hash
    try:
        return whole_table(read_parquet(data, schema=TRAJECTORY_SCHEMA))
    except (OSError, pa.ArrowException) as exc:  # damage past the footer shows only when the pages are read
        raise StageError(f"{path}: damaged Parquet data ({first_line(exc)}); {_HINT}") from None


def refuse_other_stages(root: Path, written_by: str = ROLLOUT) -> None:
    """StageError when `root` (a file or folder) holds files of other writers or stages than `written_by`
    (`other_stage_problem`)."""
    reader = "curate" if written_by == ROLLOUT else f"a reader of {EPISODE_WRITERS[written_by].episodes}"
    problem = other_stage_problem(root, reader, written_by)
    if problem is not None:
        raise StageError(problem)


def mark_episode_files(path: Path, written_by: str) -> list[Path]:
    """Record `written_by` (a key of EPISODE_WRITERS) as the writer of every unmarked trajectory file at `path` (a
    file, or a folder and everything below it), each rewritten atomically with its rows (in the current schema);
    the files marked.
    StageError, nothing written, when a file is not a trajectories file or is marked by another writer."""
    if written_by not in EPISODE_WRITERS:
        raise StageError(f"--written-by {written_by!r} is no writer of episode files; pass one of "
                         f"{', '.join(EPISODE_WRITERS)}")
    files = parquet_files(path)
    if not files:
        raise FileNotFoundError(f"{path}: {'no .parquet files' if path.is_file() or path.is_dir() else missing_path(path)}; pass a "
                                "trajectories Parquet file or a folder of them")
    unmarked = []
    for file in files:
        check_trajectory_file(file, ("record_id", "teacher"))
        mark = file_written_by(file)
        if mark is not None and mark != written_by:
            raise StageError(f"{file} is marked {WRITTEN_BY}={mark}, not {written_by}; a mark is what its writer "
                             "recorded, nothing changed: pass only unmarked files (written before the mark)")
        if mark is None:
            unmarked.append(file)
    stages = {file: RL_ROLLOUTS if "rl_step" in TRAJECTORIES.file_schema(file).names else TRAJECTORIES
              for file in unmarked}
    tables = {file: stage.marked(stage.read(file), written_by) for file, stage in stages.items()}  # all, then write
    for file, table in tables.items():
        stages[file].write(table, file, written_by=written_by)
    return unmarked


def write_trajectories(records: Sequence[TrajectoryRecord], out_dir: Path, *, written_by: str) -> Path:
    """Write records to `out_dir/trajectories-<content hash>.parquet` (atomic; same records, same name), marked with
    who wrote them (`written_by`: a key of EPISODE_WRITERS)."""
    digest = content_hash(sorted(r.record_id for r in records))[:16]
    return TRAJECTORIES.write(trajectories_table(records), Path(out_dir) / f"trajectories-{digest}.parquet",
                              written_by=written_by)


def _version(status: os.stat_result) -> tuple[int, ...]:
    """What tells one version of a file from another on disk: a file renamed over it is another inode, a file
    rewritten in place (`cp` over it) has another change time (which no tool can set back), and mostly another size
    and modification time."""
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns


def _check_scanned_pages(file: Path, columns: Sequence[str]) -> None:
    """StageError naming `file` when a page of one of its flat `columns` (the scores and counts the polars scan
    chooses rows by, which checks no page checksum) is damaged: a flipped bit of `passed` would choose a failed
    episode without a word. The nested columns (the transcripts) are read through `batches`, which checks them."""
    flat = [name for name in columns
            if name in TRAJECTORY_SCHEMA.names and not pa.types.is_nested(TRAJECTORY_SCHEMA.field(name).type)]
    try:
        parquet_file(file).read(columns=flat)
    except (OSError, pa.ArrowException) as exc:
        raise StageError(f"{file}: damaged Parquet data ({first_line(exc)}); {_HINT}") from None


class TrajectorySource:
    """Trajectory rows in one fixed order, read lazily from Parquet files or held as an Arrow table.

    A source is read in several passes (a scan that chooses rows by their position, then the rows chosen), so every
    pass must meet the files as the first did: each file's version on disk is taken when the source is made, and a
    pass that meets another (a file renamed or copied over it, or removed, meanwhile) raises StageError naming it
    (`verify`, `batches`) instead of giving other rows at the positions chosen."""

    def __init__(self, data: Path | str | pa.Table | pl.DataFrame | pl.LazyFrame,
                 needed: Sequence[str] = ()) -> None:
        self.files: list[Path] = []
        self.table: pa.Table | None = None
        self._versions: dict[Path, tuple[int, ...]] = {}
        if isinstance(data, Path | str):
            refuse_other_stages(Path(data))
            self.files = trajectory_files(Path(data))
            if not self.files:
                raise FileNotFoundError(f"{data}: no .parquet trajectory files found; run `coworkenv rollout` first")
            # Before the files are first read: a version taken after would accept a file replaced during the check.
            self._versions = {path: _version(path.stat()) for path in self.files}
            # Every file, not only the first: a damaged or foreign file is named before the scan trips on it.
            names = set.intersection(*(set(check_trajectory_file(f, needed).names) for f in self.files))
            for file in self.files:
                _check_scanned_pages(file, [c for c in needed if c in names])
        else:
            if isinstance(data, pl.LazyFrame):
                data = data.collect()
            self.table = data.to_arrow() if isinstance(data, pl.DataFrame) else data
            names = set(self.table.column_names)
        missing = [c for c in needed if c not in names]
        if missing:
            raise StageError(f"trajectories lack columns {', '.join(missing)}; write them with "
                             "coworkenv.rollout.trajectories_table or `coworkenv rollout`")

    def lazy(self) -> pl.LazyFrame:
        """All rows with a `row` index (their position in this source's order); `collect` collects it checked."""
        frame = pl.scan_parquet(self.files) if self.files else pl.from_arrow(self.table).lazy()  # type: ignore[union-attr]
        return frame.with_row_index("row")

    def collect(self, frame: pl.LazyFrame) -> pl.DataFrame:
        """`frame` (made from `lazy`) collected, then `verify`: the rows are of the files' first versions. A file
        removed or cut short under the scan is named as such rather than by the scan's own error."""
        try:
            collected = frame.collect(engine="streaming")
        except Exception:
            self.verify()
            raise
        self.verify()
        return collected

    def verify(self) -> None:
        """StageError naming the first file that is no longer the version this source was made from."""
        for path, version in self._versions.items():
            try:
                now = _version(path.stat())
            except FileNotFoundError:
                raise StageError(self._replaced(path, "removed")) from None
            if now != version:
                raise StageError(self._replaced(path, "replaced"))

    @staticmethod
    def _replaced(path: Path, how: str) -> str:
        return (f"{path} was {how} while curate read it (a copy, `rsync`, `mark-episodes` or a rollout wrote its "
                "name after curate had chosen rows by their position in it; reading on would take other rows); "
                "nothing was written; run curate again once the writer has ended")

    def batches(self, columns: Sequence[str], batch_rows: int = 8192) -> Iterator[pa.RecordBatch]:
        """The given columns, batch by batch, in row order; StageError (`verify`) when a file is not the version
        this source was made from, before and after its batches are read (read from one open file: a file renamed
        over it meanwhile is not read)."""
        if self.table is not None:
            yield from self.table.select(list(columns)).to_batches(max_chunksize=batch_rows)
            return
        for path in self.files:
            try:
                handle = path.open("rb")
            except FileNotFoundError:
                raise StageError(self._replaced(path, "removed")) from None
            with handle:
                if _version(os.fstat(handle.fileno())) != self._versions[path]:
                    raise StageError(self._replaced(path, "replaced"))
                yield from parquet_file(handle).iter_batches(batch_size=batch_rows, columns=list(columns))
                if _version(os.fstat(handle.fileno())) != self._versions[path]:  # rewritten in place while read
                    raise StageError(self._replaced(path, "replaced"))
