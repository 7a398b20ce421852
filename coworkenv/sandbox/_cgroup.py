"""The cgroups of one run, made by the host: the limits that count what a run costs the machine as a whole.

Memory: RLIMIT_AS bounds the child's address space only. The kernel also holds memory on the code's behalf that no
address space shows: page tables (native code that maps one page per GiB of address space made 500 MB of them
under a 256 MiB RLIMIT_AS), pipe buffers, lock records, queued signals, the tmpfs scratch's pages. A memory cgroup
charges all of it to the run, capped at the memory limit plus the scratch size plus `KERNEL_SLACK_BYTES`, with no
swap; the host reads whether the kernel's OOM killer stopped the run.

Tasks: RLIMIT_NPROC counts the tasks of a uid, and never binds uid 0, which the child keeps without the per-run uid:
with `max_processes` above 1 native code started the 3000 threads a probe asked for, each one a pid of the
machine's. A pids cgroup caps the run's tasks, threads included, at `max_processes`, whatever its uid.

The host makes each group below its own group of that controller (cgroup v1, or v2 where its group delegates the
controller; one v2 group carries both limits); the child joins them before any other layer; the host removes them
after reaping the child. Where one cannot be made, the run goes without that layer and says why.
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
# The layer each controller gives a run.
CONTROLLER_LAYERS = {"memory": "memory-cgroup", "pids": "pids-cgroup"}


@dataclass(frozen=True)
class RunCgroup:
    """One cgroup folder of a run, its cgroup version (1 or 2), which names its files, and the controllers whose
    limits it carries (a v1 folder one, a v2 folder all those its parent delegates)."""

    path: str
    version: int
    controllers: tuple[str, ...] = ("memory",)

    @property
    def procs(self) -> str:
        """The file a process writes its pid to, to join the group."""
        return os.path.join(self.path, "cgroup.procs")


@dataclass(frozen=True)
class RunCgroups:
    """The cgroups made for one run, and why each controller's layer that has none is missing."""

    groups: tuple[RunCgroup, ...]
    missing: dict[str, str]

    def joins(self) -> dict[str, str]:
        """Each layer in effect and the `cgroup.procs` file the child joins for it (one v2 file may serve two)."""
        return {CONTROLLER_LAYERS[c]: group.procs for group in self.groups for c in group.controllers}

    def memory(self) -> RunCgroup | None:
        """The group that carries the memory limit, if any."""
        return next((group for group in self.groups if "memory" in group.controllers), None)


def make_run_cgroups(name: str, memory_bytes: int, max_tasks: int) -> RunCgroups:
    """Fresh cgroups `name` below this process's own: memory capped at `memory_bytes` without swap, tasks (threads
    included) at `max_tasks`; for each controller where none can be made, the layer's name and why."""
    limits = {"memory": memory_bytes, "pids": max_tasks}
    by_folder: dict[tuple[str, int], list[str]] = {}
    missing: dict[str, str] = {}
    for controller in limits:
        base, version, why = _own_cgroup(controller)
        if base is None:
            missing[CONTROLLER_LAYERS[controller]] = why
        else:
            by_folder.setdefault((base, version), []).append(controller)
    groups = []
    for (base, version), controllers in by_folder.items():
        group, why = _make_group(RunCgroup(os.path.join(base, name), version, tuple(controllers)), limits)
        if group is None:
            missing.update(dict.fromkeys((CONTROLLER_LAYERS[c] for c in controllers), why))
        else:
            groups.append(group)
    return RunCgroups(tuple(groups), missing)


def _make_group(group: RunCgroup, limits: dict[str, int]) -> tuple[RunCgroup | None, str]:
    """Make the folder of `group` and write the limits of its controllers; (None, why) when either fails."""
    try:
        os.mkdir(group.path, 0o755)
    except OSError as exc:
        return None, f"cannot make a cgroup under {os.path.dirname(group.path)} ({exc.strerror})"
    try:
        for controller in group.controllers:
            (file, value), *optional = _limit_files(controller, group.version, limits[controller])
            _write(group.path, file, value)
            for file, value in optional:  # the swap file is absent where swap is not accounted: no swap to use then
                if os.path.exists(os.path.join(group.path, file)):
                    _write(group.path, file, value)
    except OSError as exc:
        remove_run_cgroup(group)
        return None, f"cannot set the limits of the cgroup {group.path} ({exc.strerror})"
    return group, ""


def _limit_files(controller: str, version: int, value: int) -> tuple[tuple[str, str], ...]:
    """The file that caps `controller` in a group of cgroup `version` and what to write there, then the optional
    ones."""
    if controller == "pids":
        return (("pids.max", str(value)),)
    if version == 1:
        return (("memory.limit_in_bytes", str(value)), ("memory.memsw.limit_in_bytes", str(value)))
    return (("memory.max", str(value)), ("memory.swap.max", "0"))


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
            _log.warning("cannot remove the sandbox cgroup %s: %s", folder, exc)
            return


def _write(folder: str, name: str, value: str) -> None:
    with open(os.path.join(folder, name), "w", encoding="ascii") as fh:
        fh.write(value)


def _own_cgroup(controller: str) -> tuple[str | None, int, str]:
    """(the folder of this process's cgroup for `controller`, its version, "") or (None, 0, why there is none to
    use)."""
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
            if version == 1 and controller not in fields[dash + 3].split(","):
                continue
            own = [path for _, controllers, path in memberships
                   if (version == 1 and controller in controllers.split(",")) or (version == 2 and not controllers)]
            if not own:
                continue
            mount_root, mount_point = fields[3], fields[4]
            relative = os.path.relpath(own[0], mount_root)
            if relative.startswith(".."):  # this process's group lies outside what is mounted here
                continue
            folder = os.path.normpath(os.path.join(mount_point, relative))
            if version == 2 and not _delegates(folder, controller):
                return None, 0, (f"the cgroup v2 group {folder} does not delegate the {controller} controller to "
                                 "sub-groups (a service manager can delegate a sub-tree to this process)")
            return folder, version, ""
    return None, 0, f"no {controller} cgroup controller is mounted"


def _delegates(folder: str, controller: str) -> bool:
    with contextlib.suppress(OSError), open(os.path.join(folder, "cgroup.subtree_control"), encoding="ascii") as fh:
        return controller in fh.read().split()
    return False
