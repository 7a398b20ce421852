# expect: ok
# expect-kernel: ok
# value: 1
# What the time namespace hides from the boot clocks, told by init's CPU clock instead: pid 1 (the machine's or the
# container's init) has used CPU since boot (393 s here), a rough gauge of the uptime, and its profiling and virtual
# kinds with it. None may answer.
import contextlib
import time


def check(**p):
    seen = {}
    for kind, name in ((0, "prof"), (1, "virt"), (2, "sched")):
        with contextlib.suppress(OSError):
            seen[name] = time.clock_gettime((~1 << 3) | kind)
    if seen:
        return f"SANDBOX-ESCAPED init's CPU time {seen}"
    return 1
