"""The LATEST pointer of a stored dataset (or partition), and content-derived release versions."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import orjson

from coworkenv.atomic import atomic_write_bytes

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
    }
    atomic_write_bytes(directory / POINTER_NAME, orjson.dumps(payload, option=orjson.OPT_SORT_KEYS) + b"\n")


def read_pointer(directory: Path) -> Pointer | None:
    """Return what `directory/LATEST` names, or None when nothing was written there yet."""
    path = directory / POINTER_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        payload = orjson.loads(raw)
        pointer = Pointer(
            file_name=str(payload["file"]),
            content_hash=str(payload["content_hash"]),
            num_rows=int(payload["num_rows"]),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise ValueError(
            f"{path}: unreadable pointer ({error}); delete it and re-materialize the dataset to rewrite it"
        ) from error
    # A pointer naming a path outside its directory would let a corrupt file redirect readers.
    if Path(pointer.file_name).name != pointer.file_name or not pointer.content_hash.startswith(
        pointer.file_name.removesuffix(".parquet")
    ):
        raise ValueError(
            f"{path}: names {pointer.file_name!r}, which is not a content-addressed file of this directory; "
            "delete the pointer and re-materialize the dataset"
        )
    return pointer


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
