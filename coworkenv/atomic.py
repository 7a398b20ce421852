"""Durable atomic file writes: a reader sees the old file or the whole new one, never a partial file."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

TEMP_PREFIX = ".tmp-"


def fsync_dir(directory: Path) -> None:
    """Flush a directory entry to disk so a completed rename survives a power loss."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit_file(temp: Path, final: Path) -> None:
    """Move a fully written, fsynced temp file to its final name in the same directory."""
    os.replace(temp, final)
    fsync_dir(final.parent)


@contextmanager
def temp_file_beside(final_dir: Path, suffix: str = "") -> Iterator[tuple[Path, BinaryIO]]:
    """Yield a temp file in `final_dir` (same filesystem, so the later rename is atomic).

    The file is fsynced when the block ends and removed if the block raises; callers
    move it into place with `commit_file`.
    """
    final_dir.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=suffix, dir=final_dir)
    temp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield temp, handle
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def atomic_write(final: Path, write: Callable[[BinaryIO], None]) -> None:
    """Write `final` atomically: `write` fills a temp file that then replaces `final` in one rename."""
    with temp_file_beside(final.parent, suffix=final.suffix) as (temp, handle):
        write(handle)
    try:
        commit_file(temp, final)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(final: Path, data: bytes) -> None:
    """Write `data` to `final` atomically and durably."""

    def write(handle: BinaryIO) -> None:
        handle.write(data)

    atomic_write(final, write)


def atomic_copy(source: Path, final: Path) -> None:
    """Copy `source` to `final` atomically and durably."""
    with source.open("rb") as src:

        def write(handle: BinaryIO) -> None:
            shutil.copyfileobj(src, handle)

        atomic_write(final, write)
