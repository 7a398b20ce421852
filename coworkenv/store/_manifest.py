"""The LATEST pointer of a stored dataset (or partition), and content-derived release versions."""

from __future__ import annotations

import errno
import hashlib
import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import orjson

from coworkenv.atomic import atomic_write_bytes, os_reason

POINTER_NAME = "LATEST"


@dataclass(frozen=True)
class Pointer:
    """What LATEST names: the current immutable file of a dataset directory."""

    file_name: str
    content_hash: str
    num_rows: int


def write_pointer(directory: Path, pointer: Pointer) -> None:
    """Point `directory/LATEST` at `pointer.file_name`, atomically."""
    payload = {
        "file": pointer.file_name,
        "content_hash": pointer.content_hash,
        "num_rows": pointer.num_rows,
        **WRITER_MARK,
    }
    atomic_write_bytes(directory / POINTER_NAME, orjson.dumps(payload, option=orjson.OPT_SORT_KEYS) + b"\n")


# In every pointer a store writes (readers take only the three keys above): a LATEST without it was written by a
# store before the marks existed, what a link out of a store into unmarked data is refused for (`_parquet`).
WRITER_MARK = {"writer": "coworkenv-store"}


def pointer_marked(directory: Path) -> bool:
    """Whether `directory/LATEST` is a pointer a store of this version wrote (it carries `WRITER_MARK`)."""
    try:
        payload = orjson.loads((directory / POINTER_NAME).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(payload, dict) and all(payload.get(key) == value for key, value in WRITER_MARK.items())


def read_pointer(directory: Path) -> Pointer | None:
    """Return what `directory/LATEST` names, or None when nothing was written there yet.

    Only a pointer that is really absent reads as "never written": a dangling or looping link (the pointer's, the
    dataset folder's, or one on the way to it: a disk not mounted) would hide the data as if there were none, so it
    is a ValueError naming the link, as is a pointer that is a folder or unreadable, and one whose row count is not a
    whole number from 0 up.
    """
    path = directory / POINTER_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        link = _broken_link_on_the_way(path)
        if link is None:
            return None
        raise ValueError(link) from None
    except IsADirectoryError:
        raise ValueError(
            f"{path} is a folder, not the pointer file the store writes; move it out of {directory} "
            "(nothing of the store is in it) and re-materialize the dataset to rewrite the pointer"
        ) from None
    except OSError as error:
        raise ValueError(_unreadable(path, error)) from None
    try:
        payload = orjson.loads(raw)
        num_rows = payload["num_rows"]
        pointer = Pointer(
            file_name=str(payload["file"]),
            content_hash=str(payload["content_hash"]),
            num_rows=num_rows,
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise ValueError(
            f"{path}: unreadable pointer ({error}); delete it and re-materialize the dataset to rewrite it"
        ) from error
    if type(num_rows) is not int or num_rows < 0:  # the writer records a count: 1.5, -3, true or "7" is an edit
        raise ValueError(
            f"{path}: its row count {num_rows!r} is not a whole number from 0 up (the pointer was edited); delete "
            "it and re-materialize the dataset to rewrite it"
        )
    # A pointer naming a path outside its directory would let a corrupt file redirect readers.
    if Path(pointer.file_name).name != pointer.file_name or not pointer.content_hash.startswith(
        pointer.file_name.removesuffix(".parquet")
    ):
        raise ValueError(
            f"{path}: names {pointer.file_name!r}, which is not a content-addressed file of this directory; "
            "delete the pointer and re-materialize the dataset"
        )
    return pointer


def pointer_problem(stored: Path) -> str | None:
    """Why the LATEST pointer beside the stored file `stored` does not lead readers to it (unreadable, a broken link,
    naming another file), in one line; None when it does. A run that only checks the file itself reads as complete
    while every reader of the dataset fails on its pointer."""
    try:
        pointer = read_pointer(stored.parent)
    except ValueError as error:
        return str(error)
    if pointer is None or pointer.file_name != stored.name:
        names = "nothing" if pointer is None else pointer.file_name
        since = ""
        if pointer is not None and (stored.parent / pointer.file_name).is_file():
            # both files are there: another write of the folder moved LATEST after this one (nothing was lost)
            since = (f" (another write stored {pointer.file_name} after it: two runs materializing it at once, or a "
                     f"write outside Dagster; both files are kept)")
        return f"{stored.parent / POINTER_NAME} names {names}, not {stored.name}{since}; re-materialize the dataset"
    return None


def _broken_link_on_the_way(path: Path) -> str | None:
    """What is wrong when `path` is missing because a symbolic link on its way dangles or loops; None when the
    path is merely absent (nothing written yet)."""
    for link in (path, *path.parents):
        if not link.is_symlink():
            continue
        try:
            os.stat(link)
        except OSError as error:
            target = os.readlink(link)
            if error.errno == errno.ELOOP:
                problem = f"is a symbolic link (to {target}) that loops"
            else:
                problem = f"is a symbolic link to {target}, which does not exist (a disk not mounted, a folder moved)"
            return (f"{link} {problem}, so the dataset pointer {path} cannot be read and its data would read "
                    "as never written; fix the link (or mount its disk), or remove it to start the dataset again")
    return None


def _unreadable(path: Path, error: OSError) -> str:
    """The message for a pointer that exists but cannot be read (a loop on its way, a folder for a file, rights)."""
    if error.errno == errno.ELOOP:
        link = _broken_link_on_the_way(path)
        if link is not None:
            return link
    if error.errno == errno.ENOTDIR:
        return (f"{path.parent} (or a folder above it) is a file, not the dataset folder the store writes; move it "
                "aside and re-materialize the dataset")
    return f"cannot read the dataset pointer {path}: {os_reason(error)}; fix its rights or the disk, then run again"


def version_from_hashes(file_hashes: dict[str, str], on: date | None = None) -> str:
    """A version name derived from the content of a release: same files -> same version.

    `file_hashes` maps each data file's path in the repository to its sha256. With `on`,
    the name carries the date (`v2026.11.30-1a2b3c4d`), otherwise only the content (`v1a2b3c4d5e6f`).
    """
    digest = hashlib.sha256()
    for path in sorted(file_hashes):
        digest.update(f"{path}\0{file_hashes[path]}\n".encode())
    hex_digest = digest.hexdigest()
    if on is None:
        return f"v{hex_digest[:12]}"
    return f"v{on:%Y.%m.%d}-{hex_digest[:8]}"
