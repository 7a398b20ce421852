# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Host information under /proc and /sys: mount table (host paths), cgroup limits, network interfaces, kernel
# settings, other processes' status.


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    found = []
    for path in ("/proc/self/mountinfo", "/proc/self/cgroup", "/sys/class/net", "/proc/sys/kernel/hostname",
                 "/sys/fs/cgroup/memory.max", "/proc/1/status", "/proc/net/tcp", "/proc/loadavg"):
        try:
            with open(path) as fh:
                found.append(path + ": " + fh.read(60))
        except Exception:
            pass
    return leak(found) if found else 1
