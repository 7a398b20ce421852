# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Host-wide time and scheduling: set the clocks, adjust them, renice itself below zero, real-time scheduling,
# pin the parent's CPUs. Every answer must be a refusal.
import os
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    done = []
    for name, call in (("settime", lambda: time.clock_settime(time.CLOCK_REALTIME, 0)),
                       ("settime_ns", lambda: time.clock_settime_ns(time.CLOCK_REALTIME, 10**18)),
                       ("nice", lambda: os.nice(-10)),
                       ("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, int(p["host_process"]), 19)),
                       ("fifo", lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))),
                       ("affinity", lambda: os.sched_setaffinity(int(p["host_process"]), {0}))):
        try:
            call()
            done.append(name)
        except Exception:
            pass
    return leak(done) if done else 1
