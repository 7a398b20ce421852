# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `len(os.sched_getaffinity(0))`, the usual way to count the CPUs a process may use
# (and `os.process_cpu_count()`'s way in later Pythons), raised OSError (ENOSYS: seccomp hides the host's CPU set) in
# every set while `os.cpu_count()` answered. The run's own CPU set now answers the sandbox's CPUs, those
# `os.cpu_count()` gives there (glibc's guess where /sys, /proc/stat and the call are out of reach): alike in every
# set, naming no host CPU; another pid's stays refused.
def check(**p):
    import os

    mine = os.sched_getaffinity(0)
    try:
        other = os.sched_getaffinity(1)
    except OSError:
        other = "refused"
    found = (mine == set(range(os.cpu_count())) == os.sched_getaffinity(os.getpid()), len(mine) >= 1, other)
    return 1 if found == (True, True, "refused") else repr(found)
