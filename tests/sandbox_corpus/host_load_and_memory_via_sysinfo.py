# expect: forbidden
# expect-kernel: ok
# value: 1
# What /proc/loadavg and /proc/meminfo show (the empty /proc and Landlock keep them out), asked of the kernel directly:
# sysinfo(2) answers the machine's load averages, total and free memory, swap and process count, in every set
# (os.getloadavg goes through it, no audit event): a live view of what the host and other runs are doing. With the
# hook off, the raw call too. Both must fail. (Uptime stays readable: CLOCK_BOOTTIME is answered in user space.)
import os


def check(**p):
    try:
        return f"SANDBOX-ESCAPED the machine's load averages: {os.getloadavg()}"
    except OSError:
        pass
    import ctypes  # refused by the hook (forbidden): only os.getloadavg is in reach there
    libc = ctypes.CDLL(None, use_errno=True)
    info = ctypes.create_string_buffer(256)
    if libc.sysinfo(info) == 0:
        return "SANDBOX-ESCAPED sysinfo answered (uptime, load, memory, processes)"
    return 1
