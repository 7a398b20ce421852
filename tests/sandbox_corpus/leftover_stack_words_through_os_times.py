# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# os.times() is times(2), which seccomp refuses (the ticks since boot are the uptime the time namespace hides). A refusal
# that returns 0 without running leaves the result buffer as the C stack held it, and CPython reads it unchecked: the
# four CPU figures were the child's own stack and library addresses divided by the tick rate (1.4e12 s "of CPU"),
# random with ASLR, a value no two runs shared (a check's verdict on it is a draw), in every set, no audit event. They
# must be a real answer: no more CPU than the process has spent, no children.
import os
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    spent = time.process_time()
    times = os.times()
    if times.user + times.system > spent + 1 or times.children_user or times.children_system:
        return leak(f"os.times() answered leftover stack words: {tuple(times)} against {spent} s of CPU")
    return 1
