"""The SFT stage: TRL conversational rows (messages, tools, env_id, capability, turns, split), made from
trajectory rows in one place (`sft_rows`), written as `<split>-NNNNN-of-NNNNN.parquet` shards and read back by
the trainers.

Rows keep `tool_calls[].function.arguments` and `tools` as JSON strings and give every message struct the same
keys, so `datasets` never has to merge schemas across rows or shards.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from coworkenv.atomic import (
    NotRegularFileError,
    commit_file,
    naming_failures,
    new_temp_file,
    output_mode,
    read_regular_file,
    settle_before_reading,
    sweep_dead_temps,
)
from coworkenv.rollout.record import MESSAGE_TYPE, TrajectoryRecord, trajectories_table
from coworkenv.store._parquet import check_bytes, checked_footer, close_parquet_writer, parquet_writer, read_parquet
from coworkenv.store.stages._card_split import card_files, card_rows_problem, card_split
from coworkenv.store.stages._hub_download import hub_download
from coworkenv.store.stages._stage import Stage, StageError, _compatible, first_line, missing_path, no_special_files
from coworkenv.store.stages._versioned import held_by_version

_HINT = "write SFT shards with `coworkenv curate TRAJ --out DIR` (or the sft_shards asset)"
SFT_SCHEMA = pa.schema([
    ("messages", pa.list_(MESSAGE_TYPE)),
    ("tools", pa.string()),
    ("env_id", pa.string()),
    ("capability", pa.string()),
    ("turns", pa.string()),
    ("split", pa.string()),
])
SFT = Stage("sft", SFT_SCHEMA, hint=_HINT, required=("messages", "tools"))
# The trajectory columns an SFT row is made of (the trajectories stage has them under the same names and types).
SFT_SOURCE_COLUMNS = ("messages", "tools", "env_id", "capability", "turns")
SFT_REQUIRED_COLUMNS = ("messages", "tools")
ROW_GROUP_ROWS = 4096
_SHARD = re.compile(r"^(?P<split>.+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.parquet$")
# The Parquet key-value metadata naming the write a shard belongs to (a digest of its split's rows): shard names alone
# cannot tell a rerun's `train-00000-of-00002` from the earlier run's `train-00001-of-00002` beside it, which a rerun
# stopped part way (a full disk, a kill) leaves, and which a reader meets while a rerun replaces the shards.
SHARD_SET = "coworkenv.shard_set"


def sft_rows(trajectories: pa.RecordBatch | pa.Table, split: str) -> pa.Table:
    """Trajectory rows (at least SFT_SOURCE_COLUMNS) as SFT rows of `split`: the one producer of SFT rows."""
    table = pa.Table.from_batches([trajectories]) if isinstance(trajectories, pa.RecordBatch) else trajectories
    messages = table.column("messages")
    empty = pc.fill_null(pc.equal(pc.list_value_length(messages), 0), True)
    if pc.any(empty).as_py():
        envs = sorted({str(e) for e in table.filter(empty).column("env_id").to_pylist()})
        raise StageError(f"{pc.sum(empty).as_py()} trajectory row(s) have no messages (env {', '.join(envs[:5])}); an "
                         "SFT row needs its conversation. The trajectories were damaged or written by another tool: "
                         "write them again with `coworkenv rollout`")
    columns = [table.column(c) for c in SFT_SOURCE_COLUMNS]
    columns.append(pa.array([split] * table.num_rows, pa.string()))
    return pa.Table.from_arrays(columns, schema=SFT_SCHEMA)


def sft_table(records: Iterable[TrajectoryRecord], split: str = "train") -> pa.Table:
    """Records as SFT rows of `split` (through their trajectory rows, so both stages encode them alike)."""
    return sft_rows(trajectories_table(records), split)


def shard_name(split: str, index: int, count: int) -> str:
    """`<split>-<index>-of-<count>.parquet`, the Hub's shard naming."""
    return f"{split}-{index:05d}-of-{count:05d}.parquet"


def shard_split(name: str) -> str | None:
    """The split a shard file name belongs to, or None when the name is not a shard's."""
    match = _SHARD.match(name)
    return match.group("split") if match else None


def shard_set_mark(split: str, max_rows: int, rows: Iterable[tuple[object, object]]) -> str:
    """The SHARD_SET mark of one write of a split: a digest of its rows' identities (record id and transcript hash,
    in order), so equal writes get equal marks (and shards keep deterministic bytes) and other rows another."""
    digest = hashlib.sha256(f"{split}\0{max_rows}\n".encode())
    for record_id, transcript_hash in rows:
        digest.update(f"{record_id}\0{transcript_hash}\n".encode())
    return digest.hexdigest()[:16]


class ShardWriter:
    """Streams one split's SFT rows into its shards of at most `max_rows` rows, in order, in bounded memory;
    each shard appears atomically when complete, marked with `shard_set` (SHARD_SET) when given."""

    def __init__(self, out_dir: Path, split: str, total: int, max_rows: int, shard_set: str | None = None) -> None:
        self.out_dir, self.split, self.max_rows = out_dir, split, max_rows
        self.schema = SFT_SCHEMA if shard_set is None else SFT_SCHEMA.with_metadata({SHARD_SET: shard_set})
        self.count = math.ceil(total / max_rows)  # an empty split gets no shard
        self.index = 0
        self.in_shard = 0
        self.pending: list[pa.Table] = []
        self.pending_rows = 0
        self.paths: list[Path] = []
        self._writer: pq.ParquetWriter | None = None
        self._temp: Path | None = None

    def add(self, table: pa.Table) -> None:
        """Append SFT rows (a table of SFT_SCHEMA)."""
        SFT.check(table)
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

    def _final(self) -> Path:
        return self.out_dir / shard_name(self.split, self.index, self.count)

    def _flush(self) -> None:
        with naming_failures(self._final()):
            self._write_pending()

    def _write_pending(self) -> None:
        if not self.pending_rows:
            return
        if self._writer is None:
            sweep_dead_temps(self.out_dir)
            fd, name = new_temp_file(self.out_dir, ".parquet", output_mode(self._final()))
            os.close(fd)
            self._temp = Path(name)
            self._writer = parquet_writer(self._temp, self.schema)
        self._writer.write_table(pa.concat_tables(self.pending))
        self.in_shard += self.pending_rows
        self.pending, self.pending_rows = [], 0

    def _close_shard(self) -> None:
        assert self._writer is not None and self._temp is not None
        final = self._final()
        with naming_failures(final):
            close_parquet_writer(self._writer)
            with self._temp.open("rb") as handle:
                os.fsync(handle.fileno())
            commit_file(self._temp, final)
        self.paths.append(final)
        self._writer, self._temp = None, None
        self.index += 1
        self.in_shard = 0

    def finish(self) -> list[Path]:
        """Write what is pending and close the last shard; the shard paths in order."""
        self._flush()
        if self._writer is not None:
            self._close_shard()
        return self.paths

    def abort(self) -> None:
        """Drop the shard being written (the complete ones stay)."""
        if self._writer is not None:
            with contextlib.suppress(OSError):  # the disk that failed the write may fail the close too
                self._writer.close()
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)


def sft_files(path: Path, split: str = "train") -> list[Path]:
    """The Parquet files of `split` under `path`: a file, a folder of shards, or a Hub-layout dataset repo (shards
    under `data/sft/`). `<split>-*.parquet` files are preferred; without any, every `*.parquet` is returned and
    `read_sft` keeps the rows of the split by their `split` column."""
    path = Path(path)
    with contextlib.suppress(FileNotFoundError):
        settle_before_reading(path)  # shards whose writer was killed while placing them: completed first
    if path.is_file() and path.suffix == ".parquet":
        return [path]
    if not path.is_dir():
        problem = ("is a file, not a .parquet shard or a folder of them" if path.is_file() else
                   f"is {missing_path(path)}" if path.exists() or path.is_symlink() else "does not exist")
        raise FileNotFoundError(f"SFT data folder {path} {problem}; pass the folder holding the sft shards")
    root = path / "data" / "sft" if (path / "data" / "sft").is_dir() else path
    # A Hub-layout repository's card says which files a split has, as `datasets.load_dataset` reads them.
    declared = card_split(path, "sft", split) if root != path else None
    named = _visible(root.rglob(f"{split}-*.parquet"))
    if declared is not None:
        chosen = _visible(file for file in card_files(path, declared) if file.suffix == ".parquet")
        named = chosen if chosen and all(file.is_relative_to(root) for file in chosen) else named
    if not named:
        _refuse_other_splits(path, root, split)
    files = no_special_files(named or _visible(root.rglob("*.parquet")), root)
    if not files:
        raise FileNotFoundError(
            f"no Parquet files under {root}; expected shards like {split}-00000-of-00001.parquet (or data/sft/ in a "
            "Hub dataset repo)"
        )
    parents = sorted({str(f.parent.relative_to(root)) for f in files})
    if len(parents) > 1:
        raise ValueError(
            f"Parquet shards under {root} sit in several folders ({', '.join(parents)}); these may be different "
            "datasets. Pass the folder holding only the sft shards."
        )
    _check_complete(files)
    unlike = card_rows_problem(path, split, declared, files, lambda file: _SHARD.match(file.name) is not None) \
        if declared is not None else None
    if unlike is not None:
        raise StageError(unlike)
    return files


def _refuse_other_splits(path: Path, root: Path, split: str) -> None:
    """StageError when the shards under `root` are named by their splits and none by `split`: read together as
    `split` they would be other splits' rows (a held-out split trained on; a version's left-out split read as the
    rows of the others, or as none once their `split` column filtered them out)."""
    others: dict[str, Path] = {}
    for file in _visible(root.rglob("*.parquet")):
        other = shard_split(file.name)
        if other is not None:
            others.setdefault(other, file)
    if not others:
        return  # shards not named by split (another tool's `part-0.parquet`): read whole, rows kept by `split`
    card = path / "README.md"
    listed = (f"; the dataset card {card} lists the splits a version has (a split without rows is left out)"
              if root != path and card.is_file() else "")
    raise StageError(f"no {split!r} shards under {root}: its shards are of the split(s) "
                     f"{', '.join(repr(name) for name in sorted(others))} ({others[min(others)].name}), and read as "
                     f"{split!r} they would be other rows than the {split!r} split's{listed}. Pass the folder "
                     f"holding the {split!r} shards ({shard_name(split, 0, 1)}, ...), or download or write them "
                     "there; nothing was read")


def _visible(paths: Iterable[Path]) -> list[Path]:
    # Hidden files are temp files of an interrupted writer (`.tmp-*`), never shards.
    return sorted(p for p in paths if not p.name.startswith("."))


def _check_complete(files: list[Path]) -> None:
    """StageError when the shards of a split are not exactly one whole set (`-00000-of-N` .. `-N-1-of-N`)."""
    sets: dict[str, dict[int, set[int]]] = {}
    for file in files:
        match = _SHARD.match(file.name)
        if match:
            sets.setdefault(match["split"], {}).setdefault(int(match["count"]), set()).add(int(match["index"]))
    for split, counts in sets.items():
        where = files[0].parent
        if len(counts) > 1:
            raise StageError(f"{where}: the {split!r} shards belong to {len(counts)} different writes (of "
                             f"{', '.join(str(c) for c in sorted(counts))} shards); reading them together would "
                             f"repeat rows. {_HINT} into an empty folder")
        count, indices = next(iter(counts.items()))
        missing = sorted(set(range(count)) - indices)
        held = held_by_version(where, [shard_name(split, i, count) for i in missing]) if missing else None
        if held is not None:
            shown = ", ".join(held.paths[:5]) + (f" and {len(held.paths) - 5} more" if len(held.paths) > 5 else "")
            is_, it = ("is", "it") if len(held.paths) == 1 else ("are", "them")
            raise StageError(f"{where}: the {split!r} split has {len(indices)} of its {count} shards: {shown} {is_} "
                             f"missing from the folder, though the version {held.version} of the repository "
                             f"{held.top} holds {it} (deleted by hand, or by a tool that cleans or syncs folders?); "
                             f"put {it} back with `{held.put_back()}` and run again; nothing was read")
        downloaded = hub_download(where, [shard_name(split, i, count) for i in missing]) if missing else None
        if downloaded is not None:
            shown = ", ".join(downloaded.paths[:5]) + (f" and {len(downloaded.paths) - 5} more"
                                                       if len(downloaded.paths) > 5 else "")
            raise StageError(f"{where}: the {split!r} split has {len(indices)} of its {count} shards: {shown} "
                             f"{'is' if len(downloaded.paths) == 1 else 'are'} missing from the folder; "
                             f"{downloaded.said()}; nothing was read")
        if missing:
            raise StageError(f"{where}: the {split!r} split has {len(indices)} of its {count} shards (missing "
                             f"{', '.join(shard_name(split, i, count) for i in missing[:5])}), so an earlier write "
                             f"was interrupted; {_HINT} again")
    _check_one_write(files)


def _shard_set(metadata: dict[bytes, bytes] | None) -> str | None:
    mark = (metadata or {}).get(SHARD_SET.encode())
    return mark.decode(errors="replace") if mark is not None else None


def _check_one_write(files: list[Path]) -> None:
    """StageError when the shards of a split carry the marks of two writes (a rerun of curate into their folder
    stopped part way, or running now); shards without any mark (older releases, other tools) are taken as before."""
    by_split: dict[str, dict[str | None, list[Path]]] = {}
    for file in files:
        split = shard_split(file.name)
        if split is not None:
            try:
                mark = _shard_set(checked_footer(file).metadata)
            except (OSError, pa.ArrowException):  # unreadable: read_sft names the file
                continue
            by_split.setdefault(split, {}).setdefault(mark, []).append(file)
    for split, writes in by_split.items():
        if len(writes) > 1:
            raise StageError(_two_writes(split, files[0].parent, [paths[0] for paths in writes.values()]))


def _two_writes(split: str, where: Path, files: list[Path]) -> str:
    return (f"{where}: the {split!r} shards come from {len(files)} different writes ({' and '.join(f.name for f in files)} "
            "are of different curations: a curate into this folder stopped part way, by a full disk or a kill, or is "
            "running now); reading them together would mix their rows. Wait for a running curate to end, or run it "
            f"again (`coworkenv curate TRAJ --out {where}`); nothing was read")


def read_sft(files: Iterable[Path], split: str | None = "train") -> pa.Table:
    """The rows of `split` (None: every row) of SFT shard files, as one table; StageError names bad files."""
    return read_sft_files(files, split)[0]


@dataclass(frozen=True)
class ShardRead:
    """One shard as `read_sft_files` read it: the sha256 and row count of the very bytes its rows came from."""

    path: Path
    sha256: str
    rows: int


def read_sft_files(files: Iterable[Path], split: str | None = "train") -> tuple[pa.Table, list[ShardRead]]:
    """`read_sft`, and what each file read was: a record of the data (a training's) taken by reading the files
    again would name another file's bytes where one was replaced in between (a curate rerun, a copy over it)."""
    files = list(files)
    tables, reads = [], []
    first_of_write: dict[str, tuple[Path, str | None]] = {}  # per split: the first shard read and its SHARD_SET mark
    for file in files:
        if not file.exists():
            raise StageError(_removed(file))
        schema = SFT.file_schema(file)
        if {"record_id", "transcript_hash"} <= set(schema.names):  # messages and tools too: taken as shards on main
            raise StageError(f"{file}: a trajectories file (the episodes of `coworkenv rollout` or `coworkenv eval`, "
                             "uncurated: failed episodes, and an eval's held-out envs, among them), not an SFT "
                             f"shard; curate its folder (`coworkenv curate FOLDER --out SFT_DIR`) and pass SFT_DIR")
        missing = [c for c in SFT_REQUIRED_COLUMNS if c not in schema.names]
        if missing:
            raise StageError(f"SFT shard {file} lacks column(s) {missing}; found {schema.names}. Are these "
                             f"sft_shards files? {_HINT}")
        for name in schema.names:
            # Other tools may spell the message structs differently, but a column must be of the same kind.
            if name in SFT_SCHEMA.names and not _compatible(schema.field(name).type, SFT_SCHEMA.field(name).type):
                raise StageError(f"SFT shard {file}: column {name!r} holds {schema.field(name).type}, an SFT shard "
                                 f"has {SFT_SCHEMA.field(name).type}; {_HINT}")
        try:
            # Once: the rows, the mark and the hash are of these bytes; checked on the file opened (a shard replaced
            # by a named pipe or a link to a device after the looks above waited for ever, or never ended).
            data = read_regular_file(file)
            check_bytes(file, data)  # a stored split's name records its hash
            table = read_parquet(data)
        except FileNotFoundError:
            raise StageError(_removed(file)) from None
        except NotRegularFileError as exc:
            raise StageError(f"{file}: {exc.kind}, not a file: nothing was read from it (it would wait or never "
                             f"end); {_removed(file)}") from None
        except (OSError, pa.ArrowException) as exc:  # damage past the footer shows only when the pages are read
            raise StageError(f"{file}: damaged Parquet data ({first_line(exc)}); {_fetch_again(file)}") from None
        except ValueError as exc:  # changed since it was written (check_bytes)
            raise StageError(str(exc)) from None
        if table.schema.names != schema.names:  # the columns checked above were of a file replaced since
            raise StageError(f"{file}: replaced while it was read (its columns changed); {_removed(file)}")
        reads.append(ShardRead(file, hashlib.sha256(data).hexdigest(), table.num_rows))
        del data
        # The mark of the bytes read, not of a footer read earlier: a rerun may have replaced the shard in between.
        first = first_of_write.setdefault(shard_split(file.name) or "", (file, _shard_set(table.schema.metadata)))
        if first[1] != _shard_set(table.schema.metadata):
            raise StageError(_two_writes(shard_split(file.name) or split or "", file.parent, [first[0], file]))
        tables.append(table)
    try:
        # Shards written by other tools may spell the message structs differently; their columns are merged.
        table = pa.concat_tables(tables, promote_options="default")
    except pa.ArrowInvalid as exc:
        raise StageError(f"SFT shards {', '.join(map(str, files))} have incompatible schemas: {exc}") from exc
    if split is not None and "split" in table.column_names and not all(f.name.startswith(f"{split}-") for f in files):
        table = table.filter(pc.equal(table.column("split"), split))
    return table, reads


def _fetch_again(file: Path) -> str:
    """How to get a damaged shard's bytes back: from the git version or the Hub download that holds it (a new
    curation, the advice for a folder of one's own, writes other rows for a file the version keeps), else curate."""
    held = held_by_version(file.parent, [file.name])
    if held is not None:
        return (f"the version {held.version} of the repository {held.top} holds it whole: put it back with "
                f"`{held.put_back()}` and run again; nothing was read")
    downloaded = hub_download(file.parent, [file.name], damaged=True)
    if downloaded is not None:
        return f"{downloaded.said()}; nothing was read"
    return f"{_HINT}"


def _removed(file: Path) -> str:
    return (f"{file}: no such file (where it was listed from its folder just before, it is gone since: a curate into "
            f"{file.parent} may have replaced the shards meanwhile); list and read the folder again once it has ended")


def read_sft_column(path: Path | str, column: str) -> list[Any]:
    """One column of an SFT shard (e.g. the env ids of a test split)."""
    return SFT.read(path, [column]).column(column).to_pylist()
