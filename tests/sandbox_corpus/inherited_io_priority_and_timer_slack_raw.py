# expect: forbidden
# expect-kernel: ok
# value: 1
# Raw with the hook off, more settings the host chose that fork and exec pass on: the I/O priority
# (ioprio_get(IOPRIO_WHO_PROCESS, 0): ionice's class and level), the timer slack (prctl(PR_GET_TIMERSLACK): how late
# the host lets its timers fire, 1234567 ns under the test host, a service's TimerSlackNSec) and transparent huge pages
# switched off (PR_GET_THP_DISABLE, 1 under the test host: a database host's setting). The first may not answer; the
# others must be the kernel's defaults, 50000 ns and 0, whatever the host's.
import ctypes
import os

IOPRIO_GET = {"x86_64": 252, "aarch64": 31}
PR_GET_TIMERSLACK, PR_GET_THP_DISABLE = 30, 42
DEFAULT_SLACK_NS = 50000


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    number = IOPRIO_GET.get(os.uname().machine)
    if number is not None:
        for who in (0, os.getpid()):
            seen = libc.syscall(number, 1, who)
            if seen >= 0:
                return f"SANDBOX-ESCAPED the host's I/O priority {seen:#x}"
    slack = libc.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)
    if slack != DEFAULT_SLACK_NS:
        return f"SANDBOX-ESCAPED the host's timer slack {slack} ns"
    if libc.prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) > 0:
        return "SANDBOX-ESCAPED the host switched transparent huge pages off"
    return 1
