# expect: ok
# expect-kernel: ok
# value: 1
# Scheduling settings the host chose, inherited through fork and exec and read back with no audit event: the policy
# (SCHED_BATCH or SCHED_IDLE under chrt, a service's CPUSchedulingPolicy), its parameters, the round-robin slice, and
# the CPU set (os.sched_getaffinity: which CPUs the host was pinned to, and how many the machine gives it), in all
# four sets. The run keeps them; it may not read them. Since the thirty-third round its own CPU set answers the
# sandbox's CPUs (`os.cpu_count()`'s, glibc's guess there), never the host's (the host test pins one CPU).
import os

NEUTRAL_CPUS = "neutral"
PROBES = (("policy", os.sched_getscheduler), ("parameters", lambda pid: os.sched_getparam(pid).sched_priority),
          ("slice", os.sched_rr_get_interval),
          ("CPU set", lambda pid: NEUTRAL_CPUS if os.sched_getaffinity(pid) == set(range(os.cpu_count() or 1))
           else sorted(os.sched_getaffinity(pid))))


def check(**p):
    for name, probe in PROBES:
        for who in (0, os.getpid()):
            try:
                answer = probe(who)
            except OSError:
                continue
            if answer != NEUTRAL_CPUS:
                return f"SANDBOX-ESCAPED the host's scheduling {name}: {answer}"
    return 1
