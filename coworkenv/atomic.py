"""Durable atomic file writes: a reader sees the old file or the whole new one, never a partial file.

A write that fails (a full disk, a file size limit, a read-only folder, a file where a folder should be) raises
`WriteError`, which names the file, the reason and what to do; the temp file is removed and any previous version of
the file is left as it was. Temp files are hidden (`.tmp-...`), so readers of a folder pass over them; those of a
writer that died are removed by the next write into the same folder.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

TEMP_PREFIX = ".tmp-"

_NO_SPACE = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
_NO_PERMISSION = {errno.EACCES, errno.EPERM, errno.EROFS}
_WRONG_KIND = {errno.ENOTDIR, errno.EEXIST, errno.EISDIR}


class WriteError(OSError):
    """A file that could not be written: the message names it, the reason and what to do."""

    def __init__(self, final: Path, cause: OSError) -> None:
        super().__init__(cause.errno, os_reason(cause))
        self.final = final
        self.message = (f"cannot write {final}: {os_reason(cause)}; {_advice(final, cause)}; "
                        "any earlier version of the file is unchanged")

    def __str__(self) -> str:
        return self.message


def os_reason(error: OSError) -> str:
    """The operating system's reason for `error`, in words (without the path, which callers name themselves)."""
    if error.errno:
        return os.strerror(error.errno)
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _advice(final: Path, error: OSError) -> str:
    if error.errno in _NO_SPACE:
        return "free disk space (or raise the file size limit or quota) and run again"
    if error.errno in _NO_PERMISSION:
        return f"make {final.parent} writable, or write to another folder"
    if error.errno in _WRONG_KIND:
        return f"a file stands where a folder is expected on the way to {final} (or a folder where the file goes); " \
               "move it away or choose another path"
    return "check the disk and the folder, then run again"


@contextmanager
def naming_failures(final: Path) -> Iterator[None]:
    """Turn an OSError of the operating system raised in the block into a `WriteError` naming `final` (a
    `WriteError` already naming a file, or an error of ours without an errno, passes as it is)."""
    try:
        yield
    except WriteError:
        raise
    except OSError as error:
        if error.errno is None:
            raise
        raise WriteError(final, error) from None


def fsync_dir(directory: Path) -> None:
    """Flush a directory entry to disk so a completed rename survives a power loss."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit_file(temp: Path, final: Path) -> None:
    """Move a fully written, fsynced temp file to its final name in the same directory."""
    with naming_failures(final):
        os.replace(temp, final)
        fsync_dir(final.parent)


def temp_prefix() -> str:
    """The name prefix of this process's temp files: `.tmp-<host tag>-<pid>-`, so a later writer can tell the files
    of a writer that died (kill -9, power loss) from those of one still writing."""
    return f"{TEMP_PREFIX}{_host_tag()}-{os.getpid()}-"


def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def sweep_dead_temps(directory: Path) -> list[Path]:
    """Remove the temp files in `directory` whose writer, a process of this host, is gone; return them.

    Files of other hosts (a shared disk) and of live processes are left alone; names of other forms too.
    """
    removed: list[Path] = []
    host = _host_tag()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        parts = entry.name[len(TEMP_PREFIX):].split("-", 2) if entry.name.startswith(TEMP_PREFIX) else []
        if len(parts) == 3 and parts[0] == host and parts[1].isdigit() and not _alive(int(parts[1])):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


@contextmanager
def temp_file_beside(final_dir: Path, suffix: str = "") -> Iterator[tuple[Path, BinaryIO]]:
    """Yield a temp file in `final_dir` (same filesystem, so the later rename is atomic).

    The file is fsynced when the block ends and removed if the block raises; callers
    move it into place with `commit_file`. Wrap it in `naming_failures(final)` so an OSError names the file.
    """
    final_dir.mkdir(parents=True, exist_ok=True)
    sweep_dead_temps(final_dir)
    fd, name = tempfile.mkstemp(prefix=temp_prefix(), suffix=suffix, dir=final_dir)
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
    with naming_failures(final):
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
