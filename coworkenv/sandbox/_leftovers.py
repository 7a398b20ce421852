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

from coworkenv.held_folders import hold, remove_abandoned, settled
from coworkenv.sandbox._cgroup import CONTROLLER_LAYERS, _own_cgroup
from coworkenv.sandbox._scratch import remove_tree

_log = logging.getLogger("coworkenv.sandbox")
RUN_DIR_PREFIX = "coworkenv-sandbox-"  # also the name of the run's cgroups


def hold_run_dir(run_dir: str) -> int | None:
    """Lock `run_dir` for the call (released by closing the returned descriptor, or by the host's death); None where
    its file system takes no locks (nothing is removed there either)."""
    return hold(run_dir)


def remove_abandoned_runs(temp_dir: str) -> list[str]:
    """Remove what calls whose host died left: settled run cgroups below this process's own that hold no process, and
    settled run directories in `temp_dir` of this uid that no live host holds; returns their paths. Never raises."""
    bases = dict.fromkeys(base for base, _, _ in map(_own_cgroup, CONTROLLER_LAYERS) if base is not None)
    removed = [group for base in bases for group in settled(base, RUN_DIR_PREFIX) if _remove_empty_group(group)]
    removed += remove_abandoned(temp_dir, RUN_DIR_PREFIX, remove_tree)
    if removed:
        _log.info("removed %d sandbox run directories and cgroups left by hosts killed mid-call", len(removed))
    return removed


def _remove_empty_group(group: str) -> bool:
    """Remove the cgroup `group` with its sub-groups, deepest first, unless one holds a process (EBUSY)."""
    folders = [folder for folder, _, _ in os.walk(group, topdown=False)]
    for folder in folders:
        try:
            os.rmdir(folder)  # a cgroup folder goes with its control files
        except OSError:
            return False
    return bool(folders)
