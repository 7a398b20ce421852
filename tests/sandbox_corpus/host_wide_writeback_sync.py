# expect: forbidden
# expect-kernel: ok
# value: 1
# Work the kernel does for the code outside its limits: sync() writes back every file system's dirty data, the
# host's included, in kernel threads whose CPU no rlimit of the child counts, and holds the child in an
# uninterruptible sleep meanwhile (a SIGKILL at the deadline waits for it, and so does the host that reaps it);
# syncfs() does it for one file system through any descriptor (a stdlib file's is the host's root). Python's
# os.sync() raises no audit event, so with the hook on this runs raw as well (ctypes, refused there).
import ctypes
import os
import platform

SYSCALLS = {"sync": (162, 81), "syncfs": (306, 267)}  # x86_64, aarch64


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    column = 0 if platform.machine() == "x86_64" else 1
    fd = os.open(os.__file__, os.O_RDONLY)
    for name, numbers in SYSCALLS.items():
        if libc.syscall(ctypes.c_long(numbers[column]), ctypes.c_long(fd)) == 0:
            return f"SANDBOX-ESCAPED {name} wrote back the host's file systems"
    return 1
