# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# os.times().elapsed is times(2): the clock ticks since boot (offset by the kernel's initial jiffies), which no time
# namespace shifts: the uptime again, in every layer set, no audit event. It may not count the machine's ticks.
# With the hook off, the raw syscall too.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    try:
        elapsed = os.times().elapsed
    except OSError:
        elapsed = 0.0
    if elapsed > 60:
        return leak(f"clock ticks since boot: {elapsed}")
    try:
        import ctypes  # refused by the hook (forbidden): only os.times is in reach there
    except ImportError:
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    number = {"x86_64": 100, "aarch64": 153}.get(os.uname().machine)
    buf = ctypes.create_string_buffer(64)
    ticks = libc.syscall(ctypes.c_long(number), buf) if number else 0
    return leak(f"raw times(): {ticks} ticks") if ticks > 6000 else 1
