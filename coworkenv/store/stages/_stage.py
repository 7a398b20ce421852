"""The table contract of one pipeline stage: its name, its Arrow schema, the one writer, and the one way to read a
file of it back (older files are migrated: renamed columns take their new name, columns added since read as null)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from coworkenv.atomic import NotRegularFileError, atomic_write, read_regular_file, settle_before_reading
from coworkenv.store._lfs import lfs_pointer_problem
from coworkenv.store._parquet import (
    StoredTable,
    check_bytes,
    checked_footer,
    parquet_file,
    read_parquet,
    whole_table,
    write_parquet,
    write_table,
)
from coworkenv.store.stages._hub_download import cache_link_advice

# The Parquet key-value metadata that names who wrote a file (a stage with `writers`): files alike column for
# column (the teacher's episodes, an eval's, a student's RL episodes) are told apart by it, not by where they sit.
WRITTEN_BY = "coworkenv.written_by"


class StageError(ValueError):
    """A stage table that cannot be written or read: the message names the file (or stage) and what to do."""


@dataclass(frozen=True)
class Stage:
    """One stage's table: every writer goes through `write` (a named file) or `store` (content-addressed), both with
    the deterministic Parquet settings, so equal tables are byte-identical whichever path wrote them."""

    name: str
    schema: pa.Schema
    hint: str  # how to produce a file of this stage, for error messages
    required: tuple[str, ...] = ()  # columns an older file must already have; the others may be missing
    renamed: Mapping[str, str] = field(default_factory=dict)  # old column name -> current name
    writers: tuple[str, ...] = ()  # who may write a file of this stage; each file is marked with its writer

    def marked(self, table: pa.Table, written_by: str | None) -> pa.Table:
        """`table` marked with its writer (WRITTEN_BY) for a stage with `writers`; StageError for a writer the
        stage does not know, or none where it needs one."""
        if not self.writers and written_by is None:
            return table
        if written_by is None or written_by not in self.writers:
            known = f"one of {', '.join(self.writers)}" if self.writers else "none: this stage marks no writer"
            raise StageError(f"a {self.name} file records who wrote it ({WRITTEN_BY} in its Parquet metadata): "
                             f"written_by={written_by!r} is not a writer of it; pass written_by= {known}")
        return table.replace_schema_metadata({**(table.schema.metadata or {}), WRITTEN_BY.encode(): written_by.encode()})

    def table(self, rows: Iterable[Mapping[str, Any]]) -> pa.Table:
        """Row dicts as a table of this stage's schema (a key outside the schema is an error)."""
        rows = list(rows)
        known = set(self.schema.names)
        for index, row in enumerate(rows):
            unknown = set(row) - known
            if unknown:
                raise StageError(f"{self.name} row {index} has keys {sorted(unknown)} outside the {self.name} "
                                 f"schema ({', '.join(self.schema.names)})")
        return pa.Table.from_pylist(rows, schema=self.schema)

    def check(self, table: pa.Table) -> pa.Table:
        """`table` itself when it has exactly this stage's schema; StageError naming the differences otherwise."""
        if table.schema.equals(self.schema):
            return table
        have = {f.name: f.type for f in table.schema}
        want = {f.name: f.type for f in self.schema}
        problems = [f"missing {n}" for n in want if n not in have]
        problems += [f"extra {n}" for n in have if n not in want]
        problems += [f"{n} is {have[n]}, not {t}" for n, t in want.items() if n in have and have[n] != t]
        nullable = {f.name: f.nullable for f in table.schema}
        problems += [f"{f.name} is {'nullable' if nullable[f.name] else 'not nullable'}, unlike the schema"
                     for f in self.schema if f.name in nullable and nullable[f.name] != f.nullable]
        if not problems:
            problems = ["columns out of order"]
        raise StageError(f"not a {self.name} table ({'; '.join(problems)}); build it with the {self.name} stage "
                         f"writer ({self.hint})")

    def write(self, table: pa.Table, path: Path | str, *, written_by: str | None = None) -> Path:
        """Write `table` to `path` atomically (a reader sees the old file or the whole new one), marked with
        `written_by` (`marked`)."""
        path = Path(path)
        checked = self.marked(self.check(table), written_by)
        atomic_write(path, lambda handle: write_parquet(checked, handle))
        return path

    def store(self, table: pa.Table, root: Path, dataset: str, partition: str | None = None, *,
              written_by: str | None = None) -> StoredTable:
        """Write `table` content-addressed under `root/dataset[/partition]` (see `coworkenv.store.write_table`),
        marked with `written_by` (`marked`)."""
        return write_table(self.marked(self.check(table), written_by), root, dataset, partition)

    def read(self, path: Path | str | StoredTable, columns: Sequence[str] | None = None, *,
             content_hash: str | None = None) -> pa.Table:
        """A file of this stage as a table of its schema (or of `columns`), migrated from older schemas.

        The file is read once; its schema and rows come from those bytes, whose sha256 must be `content_hash` (a
        `StoredTable`'s own hash when one is given) or, without one, the hash a content-addressed store name records
        (`coworkenv.store.check_bytes`): a file changed since its hash was checked is refused, not read."""
        if isinstance(path, StoredTable):
            content_hash = content_hash or path.content_hash
            path = path.path
        path = Path(path)
        data = self.checked_bytes(path, content_hash)
        schema = self.file_schema(path, data)
        wanted = [self.schema.field(c) for c in columns] if columns is not None else list(self.schema)
        current = {self.renamed.get(name, name): name for name in schema.names}
        need = [f.name for f in wanted if f.name in self.required or columns is not None]
        missing = [n for n in need if n not in current]
        if missing:
            raise StageError(f"{path}: not a {self.name} file, no column {', '.join(missing)} "
                             f"(columns: {', '.join(schema.names) or 'none'}); {self.hint}")
        stored = [current[f.name] for f in wanted if f.name in current]
        for target in wanted:
            if target.name in current:
                have = schema.field(current[target.name]).type
                if not pa.types.is_null(have) and not _compatible(have, target.type):
                    raise StageError(f"{path}: column {current[target.name]!r} holds {have}, a {self.name} file "
                                     f"has {target.type}; {self.hint}")
        try:
            if all(current.get(f.name) == f.name for f in wanted):
                # Read straight into the current schema: struct fields added since read as null.
                return whole_table(read_parquet(data, columns=[f.name for f in wanted],
                                                 schema=pa.schema(wanted)))
            table = whole_table(read_parquet(data, columns=stored))
        except (OSError, pa.ArrowException) as exc:
            raise StageError(f"{path}: damaged Parquet data or columns of another type ({first_line(exc)}); "
                             f"{self.hint}") from None
        arrays = []
        for target in wanted:
            if target.name not in current:
                arrays.append(pa.nulls(table.num_rows, target.type))
                continue
            column = table.column(current[target.name])
            try:
                arrays.append(column.cast(target.type))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise StageError(f"{path}: column {current[target.name]!r} holds {column.type}, a {self.name} file "
                                 f"has {target.type}; {self.hint}") from None
        return pa.Table.from_arrays(arrays, schema=pa.schema(wanted))

    def num_rows(self, path: Path | str) -> int:
        """The rows a file of this stage holds (from its footer, without reading them)."""
        try:
            return int(checked_footer(path).num_rows)
        except (OSError, pa.ArrowException) as exc:
            raise StageError(lfs_pointer_problem(Path(path)) or
                             f"{path}: not a readable Parquet file ({first_line(exc)}); {self.hint}") from None

    def checked_bytes(self, path: Path, content_hash: str | None = None) -> bytes:
        """The bytes of a file of this stage, read once and checked against `content_hash` or its content-addressed
        name (`coworkenv.store.check_bytes`); StageError naming the file when it is missing, unreadable or changed."""
        try:
            settle_before_reading(path)  # a set whose writer was killed while placing it: completed first
            # Checked on the file opened, not the path: a named pipe (a link to one followed) waited for a writer for
            # ever, a device never ended, and one put in place after a look at the path was read all the same.
            return check_bytes(path, read_regular_file(path), content_hash)
        except NotRegularFileError as exc:
            link = f" (a link to {os.path.realpath(path)})" if path.is_symlink() else ""
            raise StageError(f"{path}: {exc.kind}{link}, not a file or folder: nothing was read from it (it would "
                             f"wait or never end); {self.hint}") from None
        except FileNotFoundError:
            raise StageError(f"{path}: no such file; {self.hint}") from None
        except IsADirectoryError:
            raise StageError(f"{path}: a folder, not a {self.name} file; {self.hint}") from None
        except OSError as exc:
            raise StageError(f"{path}: cannot be read ({exc.strerror or exc}); {self.hint}") from None
        except ValueError as exc:
            raise StageError(str(exc)) from None

    def file_schema(self, path: Path, data: bytes | None = None) -> pa.Schema:
        """The stored schema of a file of this stage (of `data`, its bytes already read, when given); StageError
        naming it when it is not readable Parquet."""
        try:
            checked_footer(path if data is None else pa.BufferReader(data))  # a name changed on disk: damage
            schema = pq.read_schema(path if data is None else pa.BufferReader(data))
        except FileNotFoundError:
            raise StageError(f"{path}: no such file; {self.hint}") from None
        except (OSError, pa.ArrowException, UnicodeDecodeError) as exc:
            raise StageError(lfs_pointer_problem(Path(path)) or
                             f"{path}: not a readable Parquet file ({first_line(exc)}); {self.hint}") from None
        twice = sorted({name for name in schema.names if schema.names.count(name) > 1})
        if twice:  # which of the two a reader takes is arbitrary: refuse instead of guessing
            raise StageError(f"{path}: column {', '.join(map(repr, twice))} appears more than once; {self.hint}")
        return schema


def file_written_by(path: Path) -> str | None:
    """Who wrote a stage file (its WRITTEN_BY mark), or None: unmarked (written before the mark) or not readable."""
    try:
        metadata = checked_footer(path).metadata or {}
    except (OSError, pa.ArrowException):  # damaged (a mark changed on disk): its readers name the file
        return None
    mark = metadata.get(WRITTEN_BY.encode())
    return None if mark is None else mark.decode("utf-8", "replace")


def file_column_names(path: Path) -> list[str] | None:
    """The column names a Parquet file stores, or None where it does not read as Parquet (its readers name why)."""
    try:
        return list(pq.read_schema(path).names)
    except (OSError, pa.ArrowException, UnicodeDecodeError):
        return None


def file_column_values(path: Path, column: str) -> set[Any] | None:
    """The distinct values of one column of a Parquet file, or None where it does not read as Parquet or lacks the
    column (its readers name why)."""
    try:
        return set(parquet_file(path).read(columns=[column]).column(column).unique().to_pylist())
    except (OSError, KeyError, ValueError, pa.ArrowException):
        return None


def _family(kind: pa.DataType) -> str:
    # Writers differ in widths (int32/int64, string/large_string, list/large_list); only the family must match,
    # down the items of lists (a list of messages is not a list of numbers).
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return f"list of {_family(kind.value_type)}"
    for family, test in (("text", lambda t: pa.types.is_string(t) or pa.types.is_large_string(t)),
                         ("integer", pa.types.is_integer), ("number", pa.types.is_floating),
                         ("bool", pa.types.is_boolean), ("struct", pa.types.is_struct)):
        if test(kind):
            return family
    return str(kind)


def _compatible(have: pa.DataType, want: pa.DataType) -> bool:
    """Whether a column of type `have` can stand for one of type `want` (lists of nulls for any list: all empty)."""
    if _family(have).startswith("list") and _family(want).startswith("list"):
        return pa.types.is_null(have.value_type) or _compatible(have.value_type, want.value_type)
    return _family(have) == _family(want)


def missing_path(path: Path) -> str:
    """Why `path` is no file or folder to read: a named pipe, a device or a socket (a link to one followed: read, it
    would wait for a writer or never end), a looping or dangling link, or nothing there."""
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        link = f" (a link to {os.path.realpath(path)})" if path.is_symlink() else ""
        return f"{kind}{link}, not a file or folder: nothing was read from it (it would wait or never end)"
    if path.is_symlink():
        return "a symbolic link that loops" if _loops(path) else f"a symbolic link to {os.readlink(path)}, " \
                                                                 "which does not exist"
    return "no such file or folder"


def no_special_files(paths: Iterable[Path], folder: Path) -> list[Path]:
    """`paths` (found under `folder` by their names), sorted; StageError naming the first that is a named pipe, a
    device or a socket (a link to one followed): read, it would wait for a writer forever or never end."""
    found = sorted(paths)
    special = next((path for path in found if path.exists() and not path.is_file() and not path.is_dir()), None)
    if special is not None:
        raise StageError(f"{special}: {missing_path(special)}; no stage writes one: move it out of {folder} and run "
                         "again")
    broken = next((path for path in found if path.is_symlink() and not path.exists()), None)
    if broken is not None:  # read as listed, it was "gone since: a curate may have replaced the shards meanwhile"
        raise StageError(_broken_link(broken, folder))
    return found


def _broken_link(link: Path, folder: Path) -> str:
    """Why a file found under `folder` by its name is a link to nothing, and how to get its data back."""
    if _loops(link):
        return f"{link}: {missing_path(link)}; fix the link or replace it by the file, and run again; nothing was read"
    fetch = cache_link_advice(link)
    if fetch is not None:
        return (f"{link}: {missing_path(link)}: a file of the Hugging Face cache whose blob is gone (a cache clean-up, "
                f"`hf cache` deleting revisions, a quota?); download it again from the same commit with `{fetch}` and "
                "run again; nothing was read")
    return (f"{link}: {missing_path(link)} (a disk not mounted, or the file moved or deleted?); mount the disk or "
            f"put the file back where the link points (or replace the link by the file) and run again; nothing was "
            "read")


def _loops(link: Path) -> bool:
    try:
        link.stat()
    except OSError as error:
        return error.errno == errno.ELOOP
    return False


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (Arrow's run on for lines), or its type when it has none."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
