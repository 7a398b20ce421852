# expect: forbidden
# expect-kernel: ok
# value: 1
# Regression guard (main holds it): new namespaces through the raw calls, which Python 3.11 has no os.unshare for.
# A user namespace gives every capability inside it (mounts, a fresh /proc, network setup); a time namespace shifts
# the clocks the host's wall clock and the code share for its children. Each must fail.
import ctypes
import os

CLONE = {"NEWUSER": 0x10000000, "NEWNS": 0x00020000, "NEWNET": 0x40000000, "NEWPID": 0x20000000,
         "NEWIPC": 0x08000000, "NEWUTS": 0x04000000, "NEWCGROUP": 0x02000000, "NEWTIME": 0x00000080}


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    for name, flag in CLONE.items():
        if libc.unshare(ctypes.c_int(flag)) == 0:
            return f"SANDBOX-ESCAPED unshare(CLONE_{name})"
    if libc.unshare(ctypes.c_int(CLONE["NEWUSER"] | CLONE["NEWNS"])) == 0:
        return "SANDBOX-ESCAPED unshare(CLONE_NEWUSER|CLONE_NEWNS)"
    fd = os.open(".", os.O_RDONLY)  # not a namespace file: setns must not even look at it
    try:
        if libc.setns(fd, 0) == 0:
            return "SANDBOX-ESCAPED setns"
    finally:
        os.close(fd)
    return 1
