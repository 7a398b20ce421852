# expect: ok
# value: 1
# needs: proc-hidden
# ruff: noqa: SIM105, SIM115
# The host's /proc and /sys answer os.stat (no audit event, no Landlock right) with the machine's live state: the
# link count of /proc is the number of processes on the machine, /proc/<pid>/fd's size a process's open descriptors
# and /proc/<pid>/task's link count its threads (the host's, every run's), each fresh procfs inode a number of the
# machine's inode counter (which the refused pipes kept out of reach), /proc/self/fd/N's link the channels' inode
# numbers, /sys/fs/cgroup's link count the cgroups on the machine, and the times of /dev/shm, /dev/mqueue, /dev/pts
# and /run when any process last made or removed a shared memory object, a queue, a pty or a runtime file. Where the
# run may make no mount namespace at all this is a known limit; a host without root makes one in the network layer's
# user namespace and covers them there.
import os
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    host = p.get("host_process", 1)
    probes = {
        "processes on the machine": ("/proc", "st_nlink"),
        "the inode counter": ("/proc/self", "st_ino"),
        "a fresh procfs inode": ("/proc/thread-self/fdinfo", "st_ino"),
        "the host's descriptors": (f"/proc/{host}/fd", "st_size"),
        "the host's threads": (f"/proc/{host}/task", "st_nlink"),
        "init's descriptors": ("/proc/1/fd", "st_size"),
        "the cgroups": ("/sys/fs/cgroup", "st_nlink"),
        "the kernel's objects": ("/sys/kernel", "st_nlink"),
    }
    for what, (path, field) in probes.items():
        try:
            value = getattr(os.stat(path), field)
        except OSError:
            continue
        if field != "st_nlink" or value > 2:  # an empty folder (the /proc a mount namespace gives) has 2 links
            seen[what] = value
    for path in ("/dev/shm", "/dev/mqueue", "/dev/pts", "/run"):
        try:
            changed = os.stat(path).st_mtime
        except OSError:
            continue
        if changed < time.time() - 60:  # not a folder made for this run
            seen[path + " changed"] = int(changed)
    for fd in range(5):
        try:
            seen[f"fd {fd}"] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass
    return leak(f"the machine's live state through procfs metadata: {seen}") if seen else 1
