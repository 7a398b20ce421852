# expect: forbidden
# expect-kernel: ok
# value: 1
# The run's memory cgroup holds only while the code stays in it: move this process to the root group of every
# hierarchy (memory, pids, the unified one), rewrite a group's limits, the host's own among them, or leave a
# sub-group behind (it would outlive the run, and keep its parent from being removed). Cgroup files
# belong to root, so a child that keeps uid 0 (no per-run uid) passes their permission check with no capability;
# only the file layers stop it: Landlock (writes in scratch only), the minimal root (no /sys in it), the hook.
import os

ROOTS = ("/sys/fs/cgroup", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified",
         "/sys/fs/cgroup/systemd")
# release_agent and notify_on_release: cgroup v1 runs the agent as root on the host when a group empties.
FILES = ("cgroup.procs", "tasks", "memory.limit_in_bytes", "memory.max", "pids.max", "release_agent",
         "notify_on_release")


def own_groups():
    try:
        with open("/proc/self/cgroup") as fh:
            return [line.strip().split(":", 2)[2] for line in fh]
    except OSError:
        return []


def check(**p):
    targets = [os.path.join(root, name) for root in ROOTS for name in FILES]
    targets += [os.path.join(root, group.lstrip("/"), name) for group in own_groups() for root in ROOTS
                for name in FILES]
    for folder in {os.path.dirname(path) for path in targets}:
        try:
            os.mkdir(os.path.join(folder, "left-behind"))  # a sub-group keeps its parent from being removed
            return f"SANDBOX-ESCAPED made a cgroup in {folder}"
        except OSError:
            pass
    for path in targets:
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:  # its own pid, or the value already there: a write that gets through changes nothing of the host's
            os.write(fd, str(os.getpid()).encode() if path.endswith(("procs", "tasks")) else os.read(fd, 4096))
            return f"SANDBOX-ESCAPED wrote {path}"
        except OSError:
            continue
        finally:
            os.close(fd)
    return 1
