"""What a host killed mid-call leaves behind, and its removal by a later host.

A host that dies mid-call (SIGKILL, an OOM kill, a pipeline's timeout) takes its child with it, but not its run
directory (the job: the code and its payload) nor the run's cgroups: every such call left one of each for good, and
a machine whose pipeline kills hosts on timeout collects them run after run. Each call holds an exclusive `flock` on
its run directory while it lasts; the kernel drops it when the host dies, whatever killed it, and in whatever pid
namespace it lived. The first call of every host process removes the run directories in its temp folder that nobody
holds (its own uid's), with the cgroups of the same name under its own.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time

from coworkenv.sandbox._cgroup import CONTROLLER_LAYERS, RunCgroup, _own_cgroup, remove_run_cgroup
from coworkenv.sandbox._scratch import remove_tree

_log = logging.getLogger("coworkenv.sandbox")
RUN_DIR_PREFIX = "coworkenv-sandbox-"
# A run directory is made before its host locks it: one younger than this may be a live call's, not yet held.
SETTLED_S = 60.0


def hold_run_dir(run_dir: str) -> int | None:
    """Lock `run_dir` for the call (released by closing the returned descriptor, or by the host's death); None where
    its file system takes no locks (nothing is removed there either)."""
    fd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    if _lock(fd):
        return fd
    os.close(fd)
    return None


def remove_abandoned_runs(temp_dir: str) -> list[str]:
    """Remove the run directories in `temp_dir` no live host holds (settled for `SETTLED_S`), each after the cgroups
    of its name below this process's own; returns their paths. Never raises."""
    bases = list(dict.fromkeys(base for base, _, _ in map(_own_cgroup, CONTROLLER_LAYERS) if base is not None))
    removed: list[str] = []
    try:
        with os.scandir(temp_dir) as entries:
            candidates = [entry.path for entry in entries
                          if entry.name.startswith(RUN_DIR_PREFIX) and entry.is_dir(follow_symlinks=False)]
    except OSError:
        return removed
    for path in candidates:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:  # removed meanwhile, or not ours to open
            continue
        try:
            st = os.fstat(fd)  # another user's folder of that name in a shared /tmp is not ours to remove
            if st.st_uid != os.geteuid() or time.time() - st.st_mtime < SETTLED_S or not _lock(fd):
                continue
            groups = [os.path.join(base, os.path.basename(path)) for base in bases]
            for group in groups:
                if os.path.isdir(group):
                    remove_run_cgroup(RunCgroup(group, 0))
            if any(os.path.isdir(group) for group in groups):  # still busy: a later host tries again
                continue
            remove_tree(path)
            removed.append(path)
        finally:
            os.close(fd)
    if removed:
        _log.info("removed %d sandbox run(s) left by hosts killed mid-call", len(removed))
    return removed


def _lock(fd: int) -> bool:
    """Whether this process now holds the lock of `fd` (False: another holds it, or the file system takes none)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
