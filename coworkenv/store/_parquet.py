"""Immutable, content-addressed, deterministic Parquet files."""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from coworkenv import atomic as _atomic
from coworkenv.store._git_locks import lock_for_machines, shared_file_system
from coworkenv.store._lfs import lfs_pointer_in, lfs_pointer_problem
from coworkenv.store._manifest import POINTER_NAME, Pointer, pointer_marked, read_pointer, write_pointer

logger = logging.getLogger(__name__)

# Fixed writer settings: the same table must give the same bytes on every run and machine
# (for one pyarrow version: the footer names the writer's version).
PARQUET_WRITE_OPTIONS: Mapping[str, Any] = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "data_page_size": 1 << 20,
    "version": "2.6",
    "store_schema": True,
    "write_page_checksum": True,
}
ROW_GROUP_ROWS = 64 * 1024
_HASH_CHUNK = 1 << 20
_MAGIC = b"PAR1"  # a Parquet file starts and ends with it
_ADDRESSED = re.compile(r"[0-9a-f]{16}\.parquet")  # the store's content-addressed names: <sha256[:16]>.parquet


@dataclass(frozen=True)
class StoredTable:
    """One immutable Parquet file and what it holds."""

    path: Path
    content_hash: str  # hex sha256 of the file bytes; the Dagster data version
    num_rows: int
    schema: pa.Schema


# Every file the project writes checks itself whole: each page carries a CRC of its bytes (`write_page_checksum`,
# checked by every read, `read_parquet`), and the footer's key-value metadata a sha256 of the rest of the footer that
# a reader needs to find the values (the Parquet schema: column names, types; the Arrow schema; the other keys). A
# byte flipped on a disk or in a copy was otherwise read as another value (a letter of a capability id, a digit of a
# score) when the file is not content-addressed: half the one-bit flips of a specs file (docs/robustness.md).
FOOTER_CHECK = b"coworkenv.footer_sha256"
_FOOTER_DIGESTS: dict[bytes, str] = {}


def footer_digest(metadata: pq.FileMetaData) -> str:
    """The sha256 of what a reader takes from a Parquet footer besides the page offsets: the Parquet schema (every
    column's path, type and levels) and every key-value pair but FOOTER_CHECK itself. Raises UnicodeDecodeError or
    `pa.ArrowException` for a footer whose names are not readable."""
    digest = hashlib.sha256()
    for column in metadata.schema:  # each leaf: its path (the names of the groups above it), type and levels
        digest.update(f"{column.path}|{column.physical_type}|{column.logical_type}|{column.converted_type}|"
                      f"{column.max_definition_level}|{column.max_repetition_level}|{column.length}\n".encode())
    for key, value in sorted((metadata.metadata or {}).items()):
        if key != FOOTER_CHECK:
            digest.update(b"%d:%s%d:%s" % (len(key), key, len(value), value))
    return digest.hexdigest()


def _schema_footer_digest(schema: pa.Schema) -> str:
    """`footer_digest` of a file of `schema` (the footer's schema and keys do not depend on the rows: found once,
    from an empty file, per schema)."""
    key = schema.serialize().to_pybytes()
    if key not in _FOOTER_DIGESTS:
        sink = pa.BufferOutputStream()
        pq.ParquetWriter(sink, schema, **PARQUET_WRITE_OPTIONS).close()
        _FOOTER_DIGESTS[key] = footer_digest(pq.read_metadata(pa.BufferReader(sink.getvalue())))
    return _FOOTER_DIGESTS[key]


def parquet_writer(sink: BinaryIO | pa.NativeFile | str | Path, schema: pa.Schema) -> pq.ParquetWriter:
    """A writer with the deterministic settings; close it with `close_parquet_writer` (which records the footer's
    checksum)."""
    if FOOTER_CHECK in (schema.metadata or {}):  # a key carried over from elsewhere: recorded anew at the close
        schema = schema.with_metadata({k: v for k, v in schema.metadata.items() if k != FOOTER_CHECK})
    return pq.ParquetWriter(sink, schema, **PARQUET_WRITE_OPTIONS)


def close_parquet_writer(writer: pq.ParquetWriter) -> None:
    """Record the footer's checksum (`FOOTER_CHECK`) and close `writer`."""
    writer.add_key_value_metadata({FOOTER_CHECK: _schema_footer_digest(writer.schema)})
    writer.close()


def write_parquet(table: pa.Table, sink: BinaryIO | pa.NativeFile) -> None:
    """Serialize `table` deterministically: equal tables give byte-identical Parquet."""
    # pyarrow's page and row-group boundaries depend only on values and these options, not on the chunk layout
    # of `table` (tests/test_store_parquet.py checks it), so there is no need to copy into one chunk first.
    writer = parquet_writer(sink, table.schema)
    try:
        # An empty table becomes a file without row groups: `datasets` fails on a row group of 0 rows.
        if table.num_rows:
            writer.write_table(table, row_group_size=ROW_GROUP_ROWS)
    except BaseException:
        writer.close()
        raise
    close_parquet_writer(writer)


def footer_problem(metadata: pq.FileMetaData) -> str | None:
    """Why a Parquet footer is not the one its writer recorded (a byte of a column's name or type, or of the Arrow
    schema, changed on disk), or None: as written, or a file without the check (written before it, or by another
    tool)."""
    recorded = (metadata.metadata or {}).get(FOOTER_CHECK)
    if recorded is None:
        return None
    try:
        actual = footer_digest(metadata)
    except (UnicodeDecodeError, pa.ArrowException) as exc:
        return f"its footer does not read ({type(exc).__name__}: {exc})"
    if recorded.decode("ascii", "replace") != actual:
        return (f"its footer (column names, types, metadata) hashes to {actual[:16]}, not the "
                f"{recorded.decode('ascii', 'replace')[:16]} its writer recorded ({FOOTER_CHECK.decode()}): changed "
                "on disk since it was written")
    return None


def checked_footer(source: Any) -> pq.FileMetaData:
    """The footer of a Parquet file (a path, or its bytes in a `pa.BufferReader`); `pa.ArrowInvalid` when it is
    damaged (`footer_problem`), so every reader's handler of damaged Parquet names the file."""
    try:
        metadata = pq.read_metadata(source)
    except UnicodeDecodeError as exc:  # a name of the footer's schema that is no text
        raise pa.ArrowInvalid(f"its footer does not read (UnicodeDecodeError: {exc})") from None
    problem = footer_problem(metadata)
    if problem is not None:
        raise pa.ArrowInvalid(problem)
    return metadata


def read_parquet(data: bytes | pa.Buffer, **options: Any) -> pa.Table:
    """The table in Parquet bytes already read, every page's checksum and the footer's checked: a byte changed on
    disk raises `pa.ArrowInvalid` (or OSError), never reads as another value. `options` go to `pq.read_table`."""
    checked_footer(pa.BufferReader(data))
    return pq.read_table(pa.BufferReader(data), page_checksum_verification=True, **options)


def parquet_file(source: Any) -> pq.ParquetFile:
    """A `pq.ParquetFile` of `source` whose footer is checked and whose pages are checked as they are read."""
    checked_footer(source)
    if hasattr(source, "seek"):
        source.seek(0)
    return pq.ParquetFile(source, page_checksum_verification=True)


def whole_table(table: pa.Table) -> pa.Table:
    """`table` once its data is checked whole (every text valid UTF-8, every offset inside its buffer); raises
    `pa.ArrowInvalid` otherwise. pyarrow reads Parquet pages without that check, so a damaged byte inside a text was
    read as any other and failed later in whichever reader turned it into Python: a UnicodeDecodeError traceback of
    `coworkenv validate`, naming no file."""
    table.validate(full=True)
    return table


def parquet_bytes(table: pa.Table) -> bytes:
    """The deterministic Parquet serialization of `table`, in memory."""
    sink = pa.BufferOutputStream()
    write_parquet(table, sink)
    return bytes(sink.getvalue().to_pybytes())


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def addressed_hash(path: Path) -> str | None:
    """The hash prefix a content-addressed store file's name records (`<sha256[:16]>.parquet`), or None for a name
    of another shape (a file the store did not name)."""
    return path.name[:16] if _ADDRESSED.fullmatch(path.name) else None


def check_bytes(path: Path, data: bytes, content_hash: str | None = None) -> bytes:
    """`data`, the bytes just read from `path`, when their sha256 is `content_hash` (a full hash or a prefix) or,
    when None is given, the hash `path`'s content-addressed name records; ValueError naming the file otherwise.

    A reader checks the very bytes it parses: hashing the file, then opening it again to read it, would take the
    rows of a file edited or replaced in between under the hash checked before (`latest()`, the partition check and
    an asset's recorded paths all hash a file some time before it is read)."""
    expected = content_hash or addressed_hash(path)
    if expected is None:
        return data
    actual = hashlib.sha256(data).hexdigest()
    if not actual.startswith(expected):
        # What the bytes are tells the user what to do: fetch a pointer's data, rewrite a damaged file.
        pointer = lfs_pointer_in(path, data)
        if pointer is not None:
            raise ValueError(pointer)
        if not (data[:4] == _MAGIC == data[-4:] and len(data) >= 12):
            raise ValueError(_damaged(path, ValueError("no Parquet magic bytes at both ends: cut short or overwritten")))
        recorded = "its content-addressed name records" if content_hash is None else "the store recorded for it"
        raise ValueError(
            f"{path}: the bytes read hash to {actual[:16]}, not the {expected[:16]} {recorded}: the file was "
            "changed on disk (edited, or replaced by another file) since it was written or checked; nothing was "
            "read from it. Re-materialize its dataset (the store moves the changed file aside and writes the "
            "recorded content again), or put the original file back"
        )
    return data


def read_checked(path: Path, content_hash: str | None = None) -> bytes:
    """The bytes of `path`, read once and checked (`check_bytes`): parse these, never the file a second time."""
    return check_bytes(path, path.read_bytes(), content_hash)


def dataset_dir(root: Path, dataset: str, partition: str | None = None) -> Path:
    """The directory holding a dataset's (or one partition's) files.
    ValueError for a name that is no folder name, or for a folder that is a link to another folder of the store."""
    parts = [dataset] if partition is None else [dataset, partition]
    for kind, name in zip(("dataset", "partition"), parts, strict=False):
        if not name or name in {".", ".."} or name.startswith(".") or any(c in name for c in "/\\\0"):
            raise ValueError(
                f"{kind} name {name!r} is not usable as a directory name; "
                "use a non-empty name without '/', '\\' or a leading '.'"
            )
    directory = Path(root).joinpath(*parts)
    _refuse_link_within_the_store(Path(root), parts)
    _refuse_link_into_another_store(Path(root), parts)
    return directory


# Written at a store's root by its first write: what tells a link into another store (a second project's data folder,
# a backup or copy of this one) from a link to a folder on a bigger disk, which the store follows.
STORE_MARKER = ".coworkenv-store"
_MARKER_TEXT = b"This folder is a coworkenv store: every dataset folder below it belongs to it.\n"


# A store marks each LATEST it writes (`WRITER_MARK` in the pointer, `_manifest.write_pointer`): what tells a dataset
# this store (of this version) wrote, moved to another disk and linked back, from the data of a store written before
# the store marker existed, which has no mark at all. Data of a store written before the marks, moved by hand, is
# marked by this file in its folder.
DATASET_MARKER = ".coworkenv-dataset"
_UNMARKED_WALK = 2000  # folders looked at below a link's target, at most (a link to a big folder is not walked whole)


def _mark_store(root: Path) -> None:
    marker = Path(root) / STORE_MARKER
    if not marker.is_file():
        _atomic.atomic_write_bytes(marker, _MARKER_TEXT)


def _unmarked_store_data(top: Path) -> Path | None:
    """A folder at most two levels below `top` (or `top`) holding a LATEST, when no LATEST of those folders is
    marked by its writer (nor the folder by hand, `DATASET_MARKER`): the data of a store written before the marks
    existed (or copied from one), else None."""
    found: Path | None = None
    level, seen = [top], 0
    for _ in range(3):
        below: list[Path] = []
        for folder in level:
            if (folder / POINTER_NAME).is_file():
                if pointer_marked(folder) or (folder / DATASET_MARKER).is_file():
                    return None
                found = found or folder
            seen += 1
            if seen > _UNMARKED_WALK:
                return found
            try:
                below += [child for child in folder.iterdir() if not child.name.startswith(".") and child.is_dir()]
            except OSError:
                continue
        level = below
    return found


def _refuse_link_into_another_store(root: Path, parts: list[str]) -> None:
    """ValueError when `root/<parts>` is reached through a link into another store (a folder at or under a store
    marker other than this store's own): a write there would move the other store's LATEST onto this store's rows
    (its project would read them without a word), and a read would give the other store's data under this name."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(root.joinpath(*parts)))
    if real.is_relative_to(real_root):
        return
    other = next((folder for folder in (real, *real.parents) if (folder / STORE_MARKER).is_file()), None)
    link = next((root.joinpath(*parts[:n]) for n in range(1, len(parts) + 1) if root.joinpath(*parts[:n]).is_symlink()),
                root.joinpath(*parts))
    name = "/".join(parts)
    if other is None:
        unmarked = _unmarked_store_data(Path(os.path.realpath(link)))
        if unmarked is None:  # a folder on another disk, not a store's: followed
            return
        raise ValueError(
            f"{link} is a symbolic link to {os.path.realpath(link)}, which holds store data with no store's mark "
            f"({unmarked / POINTER_NAME} was written before stores marked their pointers): another project's store, "
            f"or a copy of one, whose version of {name} (its LATEST) a write would replace; "
            f"remove the link (`rm {link}`) and re-materialize {name}, or copy the folder instead of linking it (if it "
            f"is this store's own data moved to another disk, mark it: `touch {unmarked / DATASET_MARKER}`); nothing "
            "was written or read"
        )
    raise ValueError(
        f"{link} is a symbolic link into another store, {other} ({other / STORE_MARKER} marks it): {name} written "
        f"there would replace that store's version of {real.relative_to(other).as_posix() or 'its root'} (its "
        f"LATEST), and read there would be that store's data; remove the link (`rm {link}`) and re-materialize "
        f"{name}, or copy the folder instead of linking it (if {other} is this store's data moved to another disk, "
        f"remove {other / STORE_MARKER}); nothing was written or read"
    )


def _refuse_link_within_the_store(root: Path, parts: list[str]) -> None:
    """ValueError when a folder on the way from `root` to `root/<parts>` is a symbolic link that leads to another
    folder of the same store (`ln -s cap_a cap_b` to seed a capability, a dataset renamed with a link left): writing
    through it would move the other folder's LATEST onto this dataset's rows, and reading would give the other's
    rows under this name. A link out of the store (a dataset on a bigger disk) is followed."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(root.joinpath(*parts)))  # loops and dangling links: named by the pointer's reader
    if real == real_root.joinpath(*parts) or not real.is_relative_to(real_root):
        return
    # the first link on the way (None found: the folder was swapped since realpath read it; it is named itself)
    link = next((root.joinpath(*parts[:n]) for n in range(1, len(parts) + 1) if root.joinpath(*parts[:n]).is_symlink()),
                root.joinpath(*parts))
    other = real.relative_to(real_root).as_posix()
    held = f"the store's own {other!r} folder" if other != "." else "the store's root folder"
    name = "/".join(parts)
    raise ValueError(
        f"{link} is a symbolic link to {os.readlink(link) if link.is_symlink() else real}, another folder of the store {root} ({held}): "
        f"{name} written there would replace that folder's version (its LATEST), and read there would be that "
        f"folder's data; remove the link (`rm {link}`) and re-materialize {name}, or link it to a folder outside "
        "the store; nothing was written or read"
    )


def write_table(table: pa.Table, root: Path, dataset: str, partition: str | None = None) -> StoredTable:
    """Store `table` as `root/<dataset>/[<partition>/]<sha256[:16]>.parquet` and point LATEST at it.

    The write is atomic and durable; writing the same content again reuses the existing file.
    """
    directory = dataset_dir(root, dataset, partition)
    with _atomic.naming_failures(directory / "<content hash>.parquet"):
        _mark_store(root)
        return _write_content_addressed(table, directory)


def _write_content_addressed(table: pa.Table, directory: Path) -> StoredTable:
    before = _pointer_or_none(directory)
    with _atomic.temp_file_beside(directory, suffix=".parquet") as (temp, handle):
        write_parquet(table, handle)
    try:
        content_hash = file_sha256(temp)
        final = directory / f"{content_hash[:16]}.parquet"
        # Two writers of one folder at once (two Dagster runs materializing one partition, a run and a script) take
        # turns from here to the pointer: both repairing one damaged file, the second moved the first's intact file
        # aside as damaged, or failed on the file the first had just moved (FileNotFoundError).
        with _writers_take_turns(directory):
            if final.exists() and file_sha256(final) == content_hash:
                temp.unlink()
            else:
                if final.exists():
                    _quarantine(final)
                _atomic.commit_file(temp, final)
            _say_if_written_meanwhile(directory, before, final.name)
            write_pointer(directory, Pointer(final.name, content_hash, table.num_rows))
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return StoredTable(path=final, content_hash=content_hash, num_rows=table.num_rows, schema=table.schema)


def _pointer_or_none(directory: Path) -> Pointer | None:
    """What LATEST names now; None when nothing, or when it is unreadable (the write replaces it)."""
    try:
        return read_pointer(directory)
    except ValueError:
        return None


def _say_if_written_meanwhile(directory: Path, before: Pointer | None, ours: str) -> None:
    """Log, in one line, that another writer stored a version of this folder while this one wrote (its LATEST moved
    since this write began): LATEST is about to name this write's file, and the other's is kept beside it. Without a
    word, the other run's record named a file its folder's LATEST no longer did."""
    now = _pointer_or_none(directory)
    if now is None or now == before or now.file_name == ours:
        return
    logger.warning(
        "%s: another writer stored %s here while this write ran (two runs materializing this dataset or partition at "
        "once?); LATEST now names this write's %s, the last written, and %s is kept beside it (nothing was removed); "
        "re-materialize the dataset if the other run's version was the one meant", directory, now.file_name, ours,
        now.file_name)


@contextmanager
def _writers_take_turns(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on the dataset folder itself (it leaves no file) for the block, and on a network file
    system also `_machines_take_turns`; where its file system cannot lock (some FUSE ones), the block runs unlocked,
    as writes always did."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        try:
            _atomic.lock_exclusive(fd, directory, wait=False)
        except BlockingIOError:
            logger.info("%s: another writer is storing a version here; waiting for it to end", directory)
            _atomic.lock_exclusive(fd, directory)
        except _atomic.LockError:
            pass
        with _machines_take_turns(directory):
            yield
    finally:
        os.close(fd)  # releases the lock


MACHINES_LOCK = ".coworkenv-writers-lock"  # a dot file: no reader of the folder takes it (they follow LATEST)


@contextmanager
def _machines_take_turns(directory: Path) -> Iterator[None]:
    """On a network file system (two machines with one data folder on NFS or SMB), also a POSIX record lock on
    `<folder>/.coworkenv-writers-lock`, which the server keeps for every machine: the folder's `flock` stays on the
    client there (or is refused), so two machines' runs storing one partition at once were not in turns, and one
    repairing a damaged file could move the other's intact copy aside as damaged. Nothing is locked beyond the folder
    on a local disk. A mount without locks (`nolock`) is written unlocked, and each such write says so."""
    shared = shared_file_system(directory)
    if shared is None:
        yield
        return
    path = directory / MACHINES_LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o666)
    except OSError as exc:
        raise _atomic.LockError(directory, exc) from None
    try:
        lock_for_machines(
            fd, lambda exc: logger.warning(
                "%s cannot be locked (%s): %s is on a network file system (%s) mounted without locks, so a writer of "
                "another machine storing this dataset at the same time is not kept in turns (both versions are kept, "
                "LATEST names the last written); run one pipeline at a time on this data folder (or mount it with "
                "locks)", path, _atomic.os_reason(exc), directory, shared),
            lambda: logger.warning(
                "%s: another writer holds %s: waiting for it to end; the data folder is on a network file system (%s), "
                "so it may be a run of another machine storing this dataset; if it never ends, stop it there",
                directory, path.name, shared))
        yield
    finally:
        os.close(fd)  # closing releases the lock, here and at the server


def _quarantine(path: Path) -> Path:
    """Move a stored file whose bytes no longer match its content-addressed name (edited, damaged, cut short, or a
    64-bit hash prefix collision) aside, never deleting it: `<name>.damaged-<sha256 of its bytes>[:16]` beside it,
    which no reader takes (they follow LATEST) and which the same damaged bytes always get."""
    aside = path.with_name(f"{path.name}.damaged-{file_sha256(path)[:16]}")
    _atomic.commit_file(path, aside)  # the same damaged bytes always get the same name: moved twice, kept once
    logger.warning("%s did not hold the content its name records (edited or damaged on disk): moved it to %s, "
                   "writing the content again", path, aside)
    return aside


def read_table(path_or_stored: Path | str | StoredTable) -> pa.Table:
    """Read a stored Parquet file (by path or `StoredTable`) into an Arrow table; the bytes read are checked against
    the `StoredTable`'s hash or the hash the file's content-addressed name records (`check_bytes`)."""
    path = path_or_stored.path if isinstance(path_or_stored, StoredTable) else Path(path_or_stored)
    content_hash = path_or_stored.content_hash if isinstance(path_or_stored, StoredTable) else None
    try:
        return read_parquet(read_checked(path, content_hash))
    except FileNotFoundError:
        raise
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(_damaged(path, exc)) from None


def _damaged(path: Path, exc: BaseException) -> str:
    pointer = lfs_pointer_problem(path)
    if pointer is not None:  # nothing is damaged: the data was never fetched
        return pointer
    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return (f"{path}: damaged Parquet file ({reason}); re-materialize its dataset (the store moves the damaged file "
            "aside and writes it again under the same name)")


def latest(root: Path, dataset: str, partition: str | None = None) -> StoredTable | None:
    """The file LATEST names for a dataset (or partition), or None when none was written."""
    directory = dataset_dir(root, dataset, partition)
    pointer = read_pointer(directory)
    if pointer is None:
        return None
    path = directory / pointer.file_name
    if not path.is_file():
        raise FileNotFoundError(
            f"{directory / 'LATEST'} names {pointer.file_name}, which is missing; "
            "re-materialize the dataset to write it again"
        )
    try:
        data = path.read_bytes()  # once: the footer and the hash are of the same bytes
        metadata = pq.read_metadata(pa.BufferReader(data))
        schema = metadata.schema.to_arrow_schema()
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(_damaged(path, exc)) from None
    # A file edited or damaged on disk may still parse: readers would take other rows under the recorded hash,
    # the data version every later asset's freshness rests on. (They check the bytes they read against it again:
    # the file may change after this check, `Stage.read`.)
    actual = hashlib.sha256(data).hexdigest()
    del data
    if actual != pointer.content_hash:
        raise ValueError(
            f"{path}: its bytes hash to {actual[:16]}, not the {pointer.content_hash[:16]} its name and "
            f"{directory / 'LATEST'} record (the file was edited or damaged on disk); re-materialize the dataset "
            "(the store moves this file aside and writes it again)"
        )
    if metadata.num_rows != pointer.num_rows:  # the file is intact (above): the pointer was edited
        raise ValueError(
            f"{directory / 'LATEST'} records {pointer.num_rows} rows, but {path} holds {metadata.num_rows} (the "
            "pointer was edited); delete the pointer and re-materialize the dataset to rewrite it"
        )
    return StoredTable(path=path, content_hash=pointer.content_hash, num_rows=pointer.num_rows, schema=schema)


def write_rows(
    rows: Sequence[Mapping[str, Any]],
    schema: pa.Schema,
    root: Path,
    dataset: str,
    partition: str | None = None,
) -> StoredTable:
    """Store a list of row dicts under `schema` (see `write_table`); unknown keys are an error."""
    known = set(schema.names)
    for index, row in enumerate(rows):
        unknown = set(row) - known
        if unknown:
            raise ValueError(
                f"row {index} of {dataset!r} has keys {sorted(unknown)} that are not in the schema "
                f"{schema.names}; add them to the schema or drop them"
            )
    return write_table(pa.Table.from_pylist(list(rows), schema=schema), root, dataset, partition)


def shard_table(table: pa.Table, max_rows_per_shard: int) -> list[pa.Table]:
    """Split a table into consecutive shards of at most `max_rows_per_shard` rows (one shard if empty)."""
    if max_rows_per_shard < 1:
        raise ValueError(f"max_rows_per_shard must be >= 1, got {max_rows_per_shard}")
    if table.num_rows == 0:
        return [table]
    return [table.slice(start, max_rows_per_shard) for start in range(0, table.num_rows, max_rows_per_shard)]
