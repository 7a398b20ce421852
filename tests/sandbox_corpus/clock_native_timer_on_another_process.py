# expect: forbidden
# expect-kernel: ok
# value: 1
# A POSIX timer on another process's CPU clock, made raw with the hook off (ctypes; with the hook on, ctypes is
# refused): timer_create takes any process's clock, tells whether the pid exists, and its expiry (timer_gettime)
# counts down as the host works. Its own process clock must still take a timer, or where the child shares the
# host's uid (no queued signal record at all there: every timer_create answers EAGAIN, a timer holding one) a read.
import ctypes
import errno


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def make_timer(libc, clock):
    timer = ctypes.c_void_p()
    sigevent = ctypes.create_string_buffer(64)
    ctypes.memmove(sigevent, (1).to_bytes(4, "little") * 3, 12)  # sigev_value, signo, SIGEV_NONE (1)
    if libc.timer_create(ctypes.c_int(clock), sigevent, ctypes.byref(timer)) != 0:
        return None
    libc.timer_delete(timer)
    return True


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    own = (~0 << 3) | 2
    if make_timer(libc, own) is None and (ctypes.get_errno() != errno.EAGAIN
                                          or libc.clock_gettime(ctypes.c_int(own), ctypes.byref(Timespec())) != 0):
        return "own process clock refused"
    for pid in (int(p["host_process"]), 1):
        if make_timer(libc, (~pid << 3) | 2):
            return f"SANDBOX-ESCAPED a timer runs on pid {pid}'s CPU clock"
    return 1
