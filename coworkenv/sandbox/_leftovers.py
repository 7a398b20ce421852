"""What a host killed mid-call leaves behind, and its removal by a later host.

A host that dies mid-call (SIGKILL, an OOM kill, a pipeline's timeout) takes its child with it, but not its run
directory (the job: the code and its payload) nor the run's cgroups: every such call left one of each for good, and
a machine whose pipeline kills hosts on timeout collects them run after run. The first call of every host process
removes them:
- run directories in its temp folder that no live host holds: each call holds an exclusive `flock` on its own while
  it lasts, which the kernel drops when the host dies, whatever killed it and in whatever pid namespace it lived;
- run cgroups below its own that hold no process: a live call's group holds its child from a few milliseconds after
  it is made until the child is reaped, and the kernel refuses to remove a group that holds a process.
Either must have settled for `SETTLED_S` first (a run directory is made before its host locks it, a group before the
child joins it).
"""

from __future__ import annotations

import fcntl
import logging
import os
import time

from coworkenv.sandbox._cgroup import CONTROLLER_LAYERS, _own_cgroup
from coworkenv.sandbox._scratch import remove_tree

_log = logging.getLogger("coworkenv.sandbox")
RUN_DIR_PREFIX = "coworkenv-sandbox-"  # also the name of the run's cgroups
SETTLED_S = 60.0
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def hold_run_dir(run_dir: str) -> int | None:
    """Lock `run_dir` for the call (released by closing the returned descriptor, or by the host's death); None where
    its file system takes no locks (nothing is removed there either)."""
    fd = os.open(run_dir, _DIR_FLAGS)
    if _lock(fd):
        return fd
    os.close(fd)
    return None


def remove_abandoned_runs(temp_dir: str) -> list[str]:
    """Remove what calls whose host died left: settled run cgroups below this process's own that hold no process, and
    settled run directories in `temp_dir` of this uid that no live host holds; returns their paths. Never raises."""
    bases = dict.fromkeys(base for base, _, _ in map(_own_cgroup, CONTROLLER_LAYERS) if base is not None)
    removed = [group for base in bases for group in _settled_runs(base) if _remove_empty_group(group)]
    for path in _settled_runs(temp_dir):
        try:
            fd = os.open(path, _DIR_FLAGS)
        except OSError:  # removed meanwhile, or not ours to open
            continue
        try:  # another user's folder of that name in a shared /tmp is not ours to remove
            if os.fstat(fd).st_uid == os.geteuid() and _lock(fd):
                remove_tree(path)
                removed.append(path)
        finally:
            os.close(fd)
    if removed:
        _log.info("removed %d sandbox run directories and cgroups left by hosts killed mid-call", len(removed))
    return removed


def _settled_runs(folder: str) -> list[str]:
    """The folders in `folder` named like a run's that have not changed for `SETTLED_S`."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith(RUN_DIR_PREFIX) and entry.is_dir(follow_symlinks=False) and \
                        time.time() - entry.stat(follow_symlinks=False).st_mtime >= SETTLED_S:
                    found.append(entry.path)
    except OSError:
        pass
    return found


def _remove_empty_group(group: str) -> bool:
    """Remove the cgroup `group` with its sub-groups, deepest first, unless one holds a process (EBUSY)."""
    folders = [folder for folder, _, _ in os.walk(group, topdown=False)]
    for folder in folders:
        try:
            os.rmdir(folder)  # a cgroup folder goes with its control files
        except OSError:
            return False
    return bool(folders)


def _lock(fd: int) -> bool:
    """Whether this process now holds the lock of `fd` (False: another holds it, or the file system takes none)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
