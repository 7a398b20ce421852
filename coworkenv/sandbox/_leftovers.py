"""What a host killed mid-call leaves behind, and its removal by a later host.

A host that dies mid-call (SIGKILL, an OOM kill, a pipeline's timeout) takes its child with it, but not its run
directory (the job: the code and its payload) nor the run's cgroups: every such call left one of each for good, and
a machine whose pipeline kills hosts on timeout collects them run after run. The first call of every host process
removes them:
- run directories in its temp folder that no live host holds (`coworkenv.held_folders`: each call holds an exclusive
  `flock` on its own while it lasts, which the kernel drops when the host dies);
- run cgroups below its own that hold no process: a live call's group holds its child from a few milliseconds after
  it is made until the child is reaped, and the kernel refuses to remove a group that holds a process.
Either must have settled for `held_folders.SETTLED_S` first (a run directory is made before its host locks it, a
group before the child joins it).
"""

from __future__ import annotations

import logging
import os
import threading
import time

from coworkenv.held_folders import hold, remove_abandoned, settled
from coworkenv.sandbox._cgroup import CONTROLLER_LAYERS, _own_cgroup
from coworkenv.sandbox._scratch import remove_tree

_log = logging.getLogger("coworkenv.sandbox")
RUN_DIR_PREFIX = "coworkenv-sandbox-"  # also the name of the run's cgroups


def hold_run_dir(run_dir: str) -> int | None:
    """Lock `run_dir` for the call (released by closing the returned descriptor, or by the host's death); None where
    its file system takes no locks (nothing is removed there either)."""
    return hold(run_dir)


# How long a call removes its run directory before it hands the rest to a thread of its own: a normal run's takes
# milliseconds. Where no tmpfs holds the scratch the host removes what the code left there, and the disk's own cost
# of each folder is the code's to choose: on an ext4 mounted with `discard` every rmdir of a folder waited some
# 3.3 ms, so 4064 folders, within every cap of the scratch (verdict `ok`), kept `run_sandboxed` from returning for
# 12 s after a run of 0.7 s under a 5 s wall clock.
REMOVAL_BUDGET_S = 0.5
# Removals in flight in threads at once; a call that finds this many removes its own on the caller's time (a stream
# of such calls grows no backlog of threads and leftover folders).
_BACKGROUND = threading.BoundedSemaphore(2)
_removals: set[threading.Thread] = set()  # the threads removing what calls left them
REMOVING_SUFFIX = "-removing"


def remove_run_dir(run_dir: str, held: int | None) -> None:
    """Remove `run_dir` (which the descriptor `held` locks, or None) and release it: for at most REMOVAL_BUDGET_S on
    the caller's time, the rest under the name `run_dir-removing` in a daemon thread that holds the lock until it is
    done (`run_dir` itself is gone when this returns; a host that exits meanwhile leaves it to a later host's sweep,
    as a killed host's: the name keeps RUN_DIR_PREFIX). Never raises."""
    try:
        if remove_tree(run_dir, time.monotonic() + REMOVAL_BUDGET_S):
            return
        if held is None or not _BACKGROUND.acquire(blocking=False):
            remove_tree(run_dir)  # nothing to keep it this process's meanwhile, or enough removals in flight
            return
        rest = run_dir + REMOVING_SUFFIX
        try:
            os.rename(run_dir, rest)
        except OSError:
            _BACKGROUND.release()
            remove_tree(run_dir)
            return
        thread = threading.Thread(target=_finish_removal, args=(rest, held), name="sandbox-removal", daemon=True)
        _removals.add(thread)
        try:
            thread.start()
        except RuntimeError:  # no thread may start now (the interpreter is exiting)
            _removals.discard(thread)
            _BACKGROUND.release()
            remove_tree(rest)
            return
        held = None  # the thread's now
    finally:
        if held is not None:
            os.close(held)


def _finish_removal(path: str, held: int) -> None:
    try:
        remove_tree(path)
    finally:
        os.close(held)
        _removals.discard(threading.current_thread())
        _BACKGROUND.release()


def wait_for_removals(timeout: float | None = None) -> bool:
    """Wait up to `timeout` seconds (None: for good) for the removals `remove_run_dir` left to threads; whether none is
    still running (each holds its run's lock and the folders it walks open until it ends)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for thread in list(_removals):
        thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
    return not any(thread.is_alive() for thread in list(_removals))


def remove_abandoned_runs(temp_dir: str) -> list[str]:
    """Remove what calls whose host died left: settled run cgroups below this process's own that hold no process, and
    settled run directories in `temp_dir` of this uid that no live host holds; returns their paths. Never raises."""
    bases = dict.fromkeys(base for base, _, _ in map(_own_cgroup, CONTROLLER_LAYERS) if base is not None)
    removed = [group for base in bases for group in settled(base, RUN_DIR_PREFIX) if _remove_empty_group(group)]
    removed += remove_abandoned(temp_dir, RUN_DIR_PREFIX, _remove)
    if removed:
        _log.info("removed %d sandbox run directories and cgroups left by hosts killed mid-call", len(removed))
    return removed


def _remove(path: str) -> None:
    remove_tree(path)


def _remove_empty_group(group: str) -> bool:
    """Remove the cgroup `group` with its sub-groups, deepest first, unless one holds a process (EBUSY)."""
    folders = [folder for folder, _, _ in os.walk(group, topdown=False)]
    for folder in folders:
        try:
            os.rmdir(folder)  # a cgroup folder goes with its control files
        except OSError:
            return False
    return bool(folders)
