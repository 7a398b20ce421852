# expect: ok
# expect-kernel: ok
# value: 1
# Scheduling settings the host chose, inherited through fork and exec and read back with no audit event: the policy
# (SCHED_BATCH or SCHED_IDLE under chrt, a service's CPUSchedulingPolicy), its parameters, the round-robin slice, and
# the CPU set (os.sched_getaffinity: which CPUs the host was pinned to, and how many the machine gives it), in all
# four sets. The run keeps them; it may not read them.
import os

PROBES = (("policy", os.sched_getscheduler), ("parameters", lambda pid: os.sched_getparam(pid).sched_priority),
          ("slice", os.sched_rr_get_interval), ("CPU set", lambda pid: sorted(os.sched_getaffinity(pid))))


def check(**p):
    for name, probe in PROBES:
        for who in (0, os.getpid()):
            try:
                return f"SANDBOX-ESCAPED the host's scheduling {name}: {probe(who)}"
            except OSError:
                pass
    return 1
