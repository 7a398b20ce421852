# expect: ok
# expect-kernel: ok
# value: 1
# The host's CPU time, read through its process CPU clock (clock id ~pid << 3 | CPUCLOCK_SCHED, what
# clock_getcpuclockid gives): time.clock_gettime raises no audit event, the vDSO hands such ids to the kernel, and the
# kernel answers for any process of the machine, in every layer set. Only the child's own process clock (pid 0 or its
# own pid) and its threads' may answer; they must keep answering.
import os
import threading
import time


def cpu_clock(pid, kind=2):
    return (~pid << 3) | kind


def check(**p):
    own = [time.clock_gettime(cpu_clock(0)), time.clock_gettime(cpu_clock(os.getpid())),
           time.clock_gettime(time.pthread_getcpuclockid(threading.get_ident())), time.process_time()]
    if not all(value >= 0 for value in own):
        return "own clocks failed"
    try:
        seen = time.clock_gettime(cpu_clock(int(p["host_process"])))
    except OSError:
        return 1
    return f"SANDBOX-ESCAPED the host has used {seen:.3f} s of CPU"
