# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The kernel-level form of leftover_stack_words_through_os_times, with the hook off: times(2) into a buffer of the
# code's own, marked first. seccomp answered it 0 without running, so the buffer came back as the caller left it: in C
# (glibc's callers, CPython's os.times) whatever the stack held there. A refused call that reports success must have
# filled its buffer, with figures no larger than the CPU the process has spent.
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    import ctypes  # refused by the hook (forbidden): os.times is the route there

    libc = ctypes.CDLL(None, use_errno=True)
    libc.times.restype = ctypes.c_long
    buf = (ctypes.c_long * 4)(*([0x4141414141414141] * 4))
    ticks = libc.times(buf)
    if ticks != -1 and (0x4141414141414141 in list(buf) or sum(buf[:2]) > (time.process_time() + 1) * 100):
        return leak(f"times() returned {ticks} and left its buffer unfilled: {[hex(v) for v in buf]}")
    return 1
