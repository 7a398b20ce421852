"""The trajectories stage: canonical episode records (`coworkenv rollout`, the `teacher_trajectories` asset, eval
and RL rollouts), read whole as records or streamed column by column for curation.

The row codec and schema are `coworkenv.rollout.record`'s; this module is where files of them are written and read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from coworkenv.rollout.record import (
    TRAJECTORY_SCHEMA,
    Timings,
    TrajectoryRecord,
    record_from_row,
    trajectories_table,
)
from coworkenv.store._parquet import StoredTable
from coworkenv.store.stages._stage import Stage, StageError, _compatible, first_line, missing_path
from coworkenv.store.stages.sft import SFT_REQUIRED_COLUMNS
from coworkenv.world import content_hash

__all__ = [
    "EVAL_REPORT", "RL_ROLLOUTS", "TRAJECTORIES", "TRAJECTORY_SCHEMA", "TrajectorySource", "check_trajectory_file",
    "other_stage_files", "other_stage_problem", "read_trajectories", "refuse_other_stages",
    "stored_trajectories_table", "trajectory_env_ids", "trajectory_files", "without_measurements",
    "write_trajectories",
]

# Columns every trajectory row has a value in: rows without them cannot be split, deduplicated or attributed.
IDENTITY_COLUMNS = ("env_id",)
_HINT = "write trajectories with `coworkenv rollout` (or coworkenv.store.stages.write_trajectories)"
TRAJECTORIES = Stage("trajectories", TRAJECTORY_SCHEMA, hint=_HINT, required=tuple(TRAJECTORY_SCHEMA.names))
# A student's RL episodes: trajectory records plus the GRPO step that produced them (the `rl_rollouts` asset).
RL_ROLLOUTS = Stage("rl_rollouts", TRAJECTORY_SCHEMA.append(pa.field("rl_step", pa.int32())),
                    hint="rl_rollouts are written by the RL assets (assets/rl.py)",
                    required=(*TRAJECTORY_SCHEMA.names, "rl_step"))


def without_measurements(record: TrajectoryRecord) -> TrajectoryRecord:
    """The record without clock readings, so that equal episodes store byte-identical Parquet (same version)."""
    return replace(record, timings=Timings(), started_at="",
                   steps=[replace(step, model_s=0.0, env_s=0.0) for step in record.steps])


def stored_trajectories_table(records: Iterable[TrajectoryRecord]) -> pa.Table:
    """The table the pipeline stores: records without clock readings (which go to run metadata instead)."""
    return trajectories_table(without_measurements(r) for r in records)


def trajectory_files(path: Path) -> list[Path]:
    """The Parquet files of a trajectory dataset: `path` itself, or every `*.parquet` below it, sorted, less the
    files of other stages found in folders inside it (`other_stage_files`: an eval's episodes, RL rollouts)."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: {missing_path(path)}; pass a trajectories Parquet file or folder")
    files = sorted(p for p in path.rglob("*.parquet") if not p.name.startswith("."))
    others = other_stage_files(path, files)
    return [file for file in files if file not in others]


EVAL_REPORT = "eval_report.json"  # `coworkenv eval --out D` writes D/eval_report.json and its episodes in D/runs
_RL_STEP = re.compile(r"^step-\d+(-rank-\d+)?$")  # `train rl --out R`: R/rollouts/step-NNNN-rank-N/


def other_stage_files(root: Path, files: Sequence[Path] | None = None) -> dict[Path, str]:
    """The Parquet files below the folder `root` that hold another stage's rows in trajectory form, each with what
    it is: an eval's episodes (`D/runs` beside `D/eval_report.json`, over held-out envs), a student's RL episodes
    (`R/rollouts/step-*`, or files with an `rl_step` column). Trajectory readers of a folder must not take them as
    the teacher's episodes: curate trained on held-out envs without a word. A folder of that kind named as `root`
    itself (`curate D/runs`) is taken as asked."""
    if files is None:
        files = sorted(p for p in root.rglob("*.parquet") if not p.name.startswith(".")) if root.is_dir() else []
    found: dict[Path, str] = {}
    for file in files:
        inside = file.parent.relative_to(root).parts  # the folders between root and the file
        for depth in range(len(inside)):
            folder = root.joinpath(*inside[:depth + 1])
            if folder.name == "runs" and (folder.parent / EVAL_REPORT).is_file():
                found[file] = f"an eval's episodes over held-out envs, beside {folder.parent / EVAL_REPORT}"
                break
            if _RL_STEP.match(folder.name) and folder.parent.name == "rollouts":
                found[file] = f"a student's RL episodes, under {folder.parent}"
                break
        else:
            try:
                names = pq.read_schema(file).names
            except (OSError, pa.ArrowException):
                continue  # named by the readers
            if "rl_step" in names:
                found[file] = "a student's RL episodes (an rl_step column: the rl_rollouts asset)"
            elif "spec_json" in names:
                found[file] = "specs or envs (a spec_json column: synth or validate output)"
            elif "record_id" not in names and set(SFT_REQUIRED_COLUMNS) <= set(names):
                found[file] = "SFT shards (curate's output)"
    return found


def other_stage_problem(root: Path, reader: str = "curate") -> str | None:
    """Why the folder `root` cannot be read as one trajectory dataset, or None: it holds other stages' episodes
    (`other_stage_files`), which a reader of the folder would take as the teacher's; the files, what each is, and
    what to do."""
    if not root.is_dir():
        return None
    others = other_stage_files(root)
    if not others:
        return None
    shown = "; ".join(f"{file} ({what})" for file, what in list(others.items())[:3])
    more = f"; and {len(others) - 3} more" if len(others) > 3 else ""
    tops = sorted({root / file.relative_to(root).parts[0] for file in others})
    held_out = any("held-out" in what for what in others.values())
    risk = "held-out envs would reach training" if held_out else "they would be read as the teacher's episodes"
    files = f"{len(others)} Parquet files of other stages" if len(others) > 1 else "a Parquet file of another stage"
    return (f"{root} holds {files} (not a trajectories file of `coworkenv rollout`): "
            f"{shown}{more}; {reader} reads every trajectory file below {root}, so {risk}; nothing read. Move "
            f"{', '.join(map(str, tops[:3]))} out of {root} (e.g. beside it), or pass a folder that holds only "
            "`coworkenv rollout` output")


def trajectory_env_ids(file: Path) -> list[str] | None:
    """The `env_id` of every episode in one trajectory file, in order; None where the file does not read as one (its
    readers name what is wrong with it)."""
    rows = trajectory_columns(file, ("env_id",))
    return None if rows is None else [str(row["env_id"]) for row in rows]


def trajectory_columns(file: Path, columns: Sequence[str]) -> list[dict[str, Any]] | None:
    """The given columns of every episode in one trajectory file, a dict per row, in order; None where the file does
    not read as one or lacks a column (its readers name what is wrong with it)."""
    try:
        return list(pq.read_table(file, columns=list(columns)).to_pylist())
    except (OSError, KeyError, pa.ArrowException):
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
            parquet = pq.ParquetFile(file)
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
            table = pq.read_table(path, columns=identity)  # small columns: cheap next to the transcripts
        except (OSError, pa.ArrowException) as exc:
            raise StageError(f"{path}: damaged Parquet data ({first_line(exc)}); {_HINT}") from None
        for name in identity:
            if table.column(name).null_count:
                raise StageError(f"{path}: {table.column(name).null_count} of {table.num_rows} rows have no "
                                 f"{name}; every trajectory names its env; {_HINT}")
    return schema


def read_trajectories(source: Path | str | StoredTable | pa.Table) -> list[TrajectoryRecord]:
    """Records from a table, a Parquet file, or a folder of Parquet files (a bad file is named in the error)."""
    if isinstance(source, pa.Table):
        table = source
    else:
        path = source.path if isinstance(source, StoredTable) else Path(source)
        refuse_other_stages(path)
        files = trajectory_files(path)
        for file in files:
            check_trajectory_file(file, TRAJECTORY_SCHEMA.names)
        # Read with the current schema: struct fields added since (a check's role and score) read as null.
        table = pa.concat_tables([_read_file(f) for f in files]) if files else TRAJECTORY_SCHEMA.empty_table()
    missing = [n for n in TRAJECTORY_SCHEMA.names if n not in table.column_names]
    if missing:
        raise StageError(f"not a trajectories table: missing columns {', '.join(missing)} (write it with "
                         "trajectories_table or `coworkenv rollout`)")
    return [record_from_row(row) for row in table.to_pylist()]


def _read_file(path: Path) -> pa.Table:
    try:
        return pq.read_table(path, schema=TRAJECTORY_SCHEMA)
    except (OSError, pa.ArrowException) as exc:  # damage past the footer shows only when the pages are read
        raise StageError(f"{path}: damaged Parquet data ({first_line(exc)}); {_HINT}") from None


def refuse_other_stages(root: Path) -> None:
    """StageError when the folder `root` holds other stages' episodes (`other_stage_problem`)."""
    problem = other_stage_problem(root)
    if problem is not None:
        raise StageError(problem)


def write_trajectories(records: Sequence[TrajectoryRecord], out_dir: Path) -> Path:
    """Write records to `out_dir/trajectories-<content hash>.parquet` (atomic; same records, same name)."""
    digest = content_hash(sorted(r.record_id for r in records))[:16]
    return TRAJECTORIES.write(trajectories_table(records), Path(out_dir) / f"trajectories-{digest}.parquet")


class TrajectorySource:
    """Trajectory rows in one fixed order, read lazily from Parquet files or held as an Arrow table."""

    def __init__(self, data: Path | str | pa.Table | pl.DataFrame | pl.LazyFrame,
                 needed: Sequence[str] = ()) -> None:
        self.files: list[Path] = []
        self.table: pa.Table | None = None
        if isinstance(data, Path | str):
            refuse_other_stages(Path(data))
            self.files = trajectory_files(Path(data))
            if not self.files:
                raise FileNotFoundError(f"{data}: no .parquet trajectory files found; run `coworkenv rollout` first")
            # Every file, not only the first: a damaged or foreign file is named before the scan trips on it.
            names = set.intersection(*(set(check_trajectory_file(f, needed).names) for f in self.files))
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
