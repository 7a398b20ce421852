# expect: ok
# expect-kernel: ok
# value: 1
# The machine's load, which sysinfo no longer answers, summed from every process's CPU clock over a short sleep: how
# much CPU the host and everything else on the machine used meanwhile.
import contextlib
import os
import time


def total(pids):
    used = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            used += time.clock_gettime_ns((~pid << 3) | 2)
    return used


def check(**p):
    pids = [pid for pid in range(1, 6000) if pid != os.getpid()]
    before = total(pids)
    time.sleep(0.1)
    used = total(pids) - before
    if before == 0:
        return 1
    return f"SANDBOX-ESCAPED the machine's other processes used {used / 1e6:.1f} ms of CPU in 0.1 s"
