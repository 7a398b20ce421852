# expect: forbidden
# expect-kernel: ok
# value: 1
# Raw with the hook off, two more settings the host chose that fork and exec pass on: the I/O priority
# (ioprio_get(IOPRIO_WHO_PROCESS, 0): ionice's class and level) and the timer slack (prctl(PR_GET_TIMERSLACK): how
# late the host lets its timers fire, 1234567 ns under the test host, a service's TimerSlackNSec). The first may not
# answer; the second must be the kernel's default, 50000 ns, whatever the host's.
import ctypes
import os

IOPRIO_GET = {"x86_64": 252, "aarch64": 31}
PR_GET_TIMERSLACK = 30
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
    return 1
