"""A memory cgroup per run, made by the host: the one limit that counts all the memory a run costs the machine.

RLIMIT_AS bounds the child's address space only. The kernel also holds memory on the code's behalf that no
address space shows: page tables (native code that maps one page per GiB of address space made 500 MB of them
under a 256 MiB RLIMIT_AS), pipe buffers, lock records, queued signals, the tmpfs scratch's pages. A memory cgroup
charges all of it to the run. The host makes one below its own memory cgroup (cgroup v1, or v2 where its group
delegates the memory controller), capped at the memory limit plus the scratch size plus `KERNEL_SLACK_BYTES`, with
no swap; the child joins it before any other layer; the host reads whether the kernel's OOM killer stopped it and
removes the group after reaping the child. Where none can be made, the run goes without and says why.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass

_log = logging.getLogger("coworkenv.sandbox")
# What a run's kernel side costs beyond its address space and scratch, with room to spare: page tables of a full
# address space (~0.5 MiB), default pipes (2 MiB), locks, mappings and watches (~15 MiB, measured in the corpus).
KERNEL_SLACK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class RunCgroup:
    """One run's memory cgroup: its folder and the cgroup version (1 or 2), which names its files."""

    path: str
    version: int

    @property
    def procs(self) -> str:
        """The file a process writes its pid to, to join the group."""
        return os.path.join(self.path, "cgroup.procs")


def make_run_cgroup(name: str, limit_bytes: int) -> tuple[RunCgroup | None, str | None]:
    """A fresh memory cgroup `name` below this process's own, capped at `limit_bytes` without swap, or None and why
    there is none."""
    base, version, why = _own_memory_cgroup()
    if base is None:
        return None, why
    group = RunCgroup(os.path.join(base, name), version)
    try:
        os.mkdir(group.path, 0o755)
    except OSError as exc:
        return None, f"cannot make a memory cgroup under {base} ({exc.strerror})"
    limits = (("memory.limit_in_bytes", "memory.memsw.limit_in_bytes") if version == 1
              else ("memory.max", "memory.swap.max"))
    try:
        _write(group.path, limits[0], str(limit_bytes))
        swap = os.path.join(group.path, limits[1])
        if os.path.exists(swap):  # absent where swap is not accounted: there is no swap to use then either
            _write(group.path, limits[1], str(limit_bytes) if version == 1 else "0")
    except OSError as exc:
        remove_run_cgroup(group)
        return None, f"cannot cap the memory cgroup {group.path} ({exc.strerror})"
    return group, None


def oom_killed(group: RunCgroup) -> bool:
    """Whether the kernel's OOM killer stopped a process of the group (it held more than the group's cap)."""
    events = "memory.oom_control" if group.version == 1 else "memory.events"
    try:
        with open(os.path.join(group.path, events), encoding="ascii") as fh:
            counts = dict(line.split() for line in fh if len(line.split()) == 2)
    except (OSError, ValueError):
        return False
    return counts.get("oom_kill", "0") != "0"


def remove_run_cgroup(group: RunCgroup) -> None:
    """Remove the group and any sub-group made in it (its processes are gone), deepest first; never raises, logs
    what it could not remove."""
    folders = [folder for folder, _, _ in os.walk(group.path, topdown=False)] or [group.path]
    for folder in folders:
        try:
            os.rmdir(folder)  # a cgroup folder goes with its control files
        except OSError as exc:
            _log.warning("cannot remove the sandbox memory cgroup %s: %s", folder, exc)
            return


def _write(folder: str, name: str, value: str) -> None:
    with open(os.path.join(folder, name), "w", encoding="ascii") as fh:
        fh.write(value)


def _own_memory_cgroup() -> tuple[str | None, int, str]:
    """(the folder of this process's memory cgroup, its version, "") or (None, 0, why there is none to use)."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            memberships = [line.rstrip("\n").split(":", 2) for line in fh]
        with open("/proc/self/mountinfo", encoding="utf-8") as fh:
            mounts = [line.split() for line in fh]
    except OSError as exc:
        return None, 0, f"cannot read this process's cgroups ({exc.strerror})"
    for version, fstype in ((1, "cgroup"), (2, "cgroup2")):
        for fields in mounts:
            dash = fields.index("-") if "-" in fields else -1
            if dash < 0 or fields[dash + 1] != fstype:
                continue
            if version == 1 and "memory" not in fields[dash + 3].split(","):
                continue
            own = [path for _, controllers, path in memberships
                   if (version == 1 and "memory" in controllers.split(",")) or (version == 2 and not controllers)]
            if not own:
                continue
            mount_root, mount_point = fields[3], fields[4]
            relative = os.path.relpath(own[0], mount_root)
            if relative.startswith(".."):  # this process's group lies outside what is mounted here
                continue
            folder = os.path.normpath(os.path.join(mount_point, relative))
            if version == 2 and not _delegates_memory(folder):
                return None, 0, (f"the cgroup v2 group {folder} does not delegate the memory controller to sub-groups "
                                 "(a service manager can delegate a sub-tree to this process)")
            return folder, version, ""
    return None, 0, "no memory cgroup controller is mounted"


def _delegates_memory(folder: str) -> bool:
    with contextlib.suppress(OSError), open(os.path.join(folder, "cgroup.subtree_control"), encoding="ascii") as fh:
        return "memory" in fh.read().split()
    return False
