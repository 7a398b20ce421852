# expect: ok
# expect-kernel: ok
# value: 1
# What the empty /proc keeps from the code (which processes run on the machine, the host's group and session, their
# scheduling), asked by pid through calls no audit event covers and no namespace changes: getpgid, getsid,
# sched_getscheduler/getparam/rr_get_interval/getaffinity, getpriority. All the machine's pids answered, 40000 of them
# in 0.05 s of CPU, in every set. Only the child's own pid (or 0, itself) may answer (the scheduling calls no longer
# answer at all: inherited_scheduling_policy_and_cpu_set_of_the_host); any other must be refused alike, whether a
# process has that pid or not.
import os

PROBES = (
    ("getpgid", os.getpgid), ("getsid", os.getsid), ("sched_getscheduler", os.sched_getscheduler),
    ("sched_getparam", os.sched_getparam), ("sched_rr_get_interval", os.sched_rr_get_interval),
    ("sched_getaffinity", os.sched_getaffinity),
    ("getpriority", lambda pid: os.getpriority(os.PRIO_PROCESS, pid)),
)


def check(**p):
    own = os.getpid()
    for name, probe in PROBES:
        errors = set()
        for pid in (own, 0):
            try:
                probe(pid)
            except OSError as exc:
                errors.add(exc.errno)
        for pid in (int(p["host_process"]), 1, *range(2, 5000)):
            if pid == own:
                continue
            try:
                probe(pid)
                return f"SANDBOX-ESCAPED {name} answered for pid {pid}"
            except OSError as exc:
                errors.add(exc.errno)
        if len(errors) > 1:
            return f"SANDBOX-ESCAPED {name} told existing pids from free ones: errnos {sorted(errors)}"
    return 1
