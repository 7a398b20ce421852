# expect: forbidden
# expect-kernel: ok
# value: 1
# The inherited peak resident set (the host's, carried over at exec) through the raw getrusage syscall with the hook
# off, for every `who` the kernel takes (itself, its threads, its children): no fresh resource module or Python-level
# wrapper stands in the way there, only the kernel.
import ctypes
import os

GETRUSAGE = {"x86_64": 98, "aarch64": 165}


class Rusage(ctypes.Structure):
    _fields_ = [("times", ctypes.c_long * 4), ("maxrss", ctypes.c_long), ("rest", ctypes.c_long * 13)]


def check(host_peak_rss_kib=0, **p):
    number = GETRUSAGE.get(os.uname().machine)
    if number is None:
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    for who in (0, 1, -1):  # RUSAGE_SELF, RUSAGE_THREAD, RUSAGE_CHILDREN
        usage = Rusage()
        if libc.syscall(number, who, ctypes.byref(usage)) == 0 and host_peak_rss_kib and \
                usage.maxrss >= int(host_peak_rss_kib) * 9 // 10:
            return f"SANDBOX-ESCAPED the host's peak RSS {usage.maxrss} KiB (who {who})"
    return 1
