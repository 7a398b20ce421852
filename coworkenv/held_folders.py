"""Temp folders a process holds while it works, and their removal by a later process once the holder died.

A process killed while it works (SIGKILL, an OOM kill, a pipeline's timeout) cannot remove its temp folder: a
sandbox call's run directory (the job: the code and its payload), or a publish's staging folder (a whole copy of the
release's data). A machine whose runs are killed now and then collects them for good. So each such folder is held by
an exclusive `flock` while it is in use, which the kernel drops when the holder dies, whatever killed it and in
whatever pid namespace it lived; a later process removes the folders of its prefix in its temp folder that are its
uid's, have settled for `SETTLED_S` (a folder is made before it is locked) and that no live process holds. A folder
holding `HELD_MARK`, which its holder writes once it holds the lock, need not settle: whoever takes its lock then
knows the holder is dead. Without the mark, a publish killed and at once run again (what anyone does) left the
killed one's copy beside a checkpoint, a second copy of its weights on the disk, until a publish a minute later. The
holder removes the mark last, after renaming the emptied folder to `...REMOVING`, a name no new folder has: killed
before its last `rmdir`, it leaves a folder that the next process removes at once too, not an unmarked empty one.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_log = logging.getLogger(__name__)
SETTLED_S = 60.0
HELD_MARK = ".coworkenv-held"  # written into a folder by its holder once it holds the folder's lock
REMOVING = ".removing"  # the suffix of a held folder's name while its holder removes it (mkdtemp never makes it)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def hold(folder: str) -> int | None:
    """Lock `folder` for as long as it is in use (released by closing the returned descriptor, or by this process's
    death); None where its file system takes no locks (nothing is removed there either)."""
    fd = os.open(folder, _DIR_FLAGS)
    if _lock(fd):
        return fd
    os.close(fd)
    return None


def remove_abandoned(temp_dir: str, prefix: str, remove: Callable[[str], None] | None = None) -> list[str]:
    """Remove the folders named `prefix...` in `temp_dir` that are this uid's, settled, and held by no live process,
    with `remove` (default: `shutil.rmtree`, errors ignored); return their paths. Never raises."""
    removed = []
    for path in settled(temp_dir, prefix, marked=HELD_MARK):
        try:
            fd = os.open(path, _DIR_FLAGS)
        except OSError:  # removed meanwhile, or not ours to open
            continue
        try:  # another user's folder of that name in a shared /tmp is not ours to remove
            if os.fstat(fd).st_uid == os.geteuid() and _lock(fd):
                (remove or _rmtree)(path)
                removed.append(path)
        finally:
            os.close(fd)
    return removed


def settled(folder: str, prefix: str, marked: str | None = None) -> list[str]:
    """The folders in `folder` named `prefix...` that have not changed for `SETTLED_S`, or that hold a file named
    `marked` or are named `...REMOVING` (their holder had locked them).

    A folder dated more than `SETTLED_S` in the future is settled too: it was not made in the instant before its
    maker locks it (what settling waits for) but under a clock since set back (NTP stepping a clock that ran ahead, a
    VM restored from a snapshot) or copied with its dates (`cp -p`, a backup); on `now - mtime` alone it stayed until
    the clock caught up, an hour, a day or a year later, a whole copy of a release's weights each."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith(prefix) and entry.is_dir(follow_symlinks=False) and (
                        abs(time.time() - entry.stat(follow_symlinks=False).st_mtime) >= SETTLED_S
                        or (marked is not None and (entry.name.endswith(REMOVING)
                                                    or os.path.lexists(os.path.join(entry.path, marked))))):
                    found.append(entry.path)
    except OSError:
        pass
    return found


@contextmanager
def held_temp_dir(prefix: str, parent: str | None = None) -> Iterator[Path]:
    """A new temp folder named `prefix...` in `parent` (default: the system's temp folder), held while the block runs
    and removed after it; first removes the folders of that prefix that processes killed while they held them left."""
    temp_dir = parent or tempfile.gettempdir()
    if left := remove_abandoned(temp_dir, prefix):
        _log.info("removed %d temp folders %s... left by processes killed while they used them", len(left), prefix)
    folder = tempfile.mkdtemp(prefix=prefix, dir=temp_dir)
    held = hold(folder)
    try:
        if held is not None:  # the lock is held: from now on a remover that takes it knows this process is dead
            os.close(os.open(os.path.join(folder, HELD_MARK), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                             0o600))
        yield Path(folder)
    finally:
        _remove_held(folder)
        if held is not None:
            os.close(held)


def _remove_held(folder: str) -> None:
    """Remove `folder`, its HELD_MARK last, once the folder is renamed `...REMOVING`: killed while removing it, a
    process leaves what it had not removed yet marked or so named, so the next one removes that at once. Unlinking
    the mark and then the folder left an empty folder, unmarked, for a minute, when killed between the two."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name == HELD_MARK:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    _rmtree(entry.path)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
    except OSError:
        pass
    with contextlib.suppress(OSError):  # the lock follows the folder (its descriptor) under its new name
        os.rename(folder, folder + REMOVING)
        folder += REMOVING
    _rmtree(folder)


def _rmtree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _lock(fd: int) -> bool:
    """Whether this process now holds the lock of `fd` (False: another holds it, or the file system takes none)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
