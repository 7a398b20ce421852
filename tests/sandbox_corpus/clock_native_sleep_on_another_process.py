# expect: forbidden
# expect-kernel: ok
# value: 1
# clock_nanosleep on another process's CPU clock, raw with the hook off: the sleep ends when the host has used some
# more CPU (TIMER_ABSTIME on its clock), a wake-up the host's activity triggers, and its errno tells whether a pid
# exists. Only EINVAL may come back, as for a pid with no process.
import ctypes


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    for pid in (int(p["host_process"]), 1):
        wake = Timespec(0, 1)  # already past: returns at once where the clock is the code's to read
        err = libc.clock_nanosleep(ctypes.c_int((~pid << 3) | 2), 1, ctypes.byref(wake), None)
        if err != 22:  # clock_nanosleep returns the error number itself
            return f"SANDBOX-ESCAPED slept on pid {pid}'s CPU clock (returned {err})"
    return 1
