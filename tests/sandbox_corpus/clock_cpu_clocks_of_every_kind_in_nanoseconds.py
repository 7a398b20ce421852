# expect: ok
# expect-kernel: ok
# value: 1
# The other routes to another process's CPU clock: the nanosecond reader, the three kinds (profiling, virtual,
# scheduler), clock_getres, and a clock id whose pid has bits above 32 set (the kernel reads the id as a 32-bit int).
import time


def check(**p):
    host = int(p["host_process"])
    for kind in (0, 1, 2):
        clock = (~host << 3) | kind
        for name, call in (("clock_gettime_ns", time.clock_gettime_ns), ("clock_gettime", time.clock_gettime),
                           ("clock_getres", time.clock_getres)):
            try:
                value = call(clock)
            except (OSError, OverflowError):
                continue
            return f"SANDBOX-ESCAPED {name} of the host's kind-{kind} CPU clock: {value}"
    return 1
