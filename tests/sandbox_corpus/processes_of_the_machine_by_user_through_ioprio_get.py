# expect: forbidden
# expect-kernel: ok
# value: 1
# The I/O priority of every process of a user or a process group, raw with the hook off: ioprio_get(IOPRIO_WHO_USER,
# 0) answers the highest among all processes of the child's uid (root's where it keeps the host's). Only
# IOPRIO_WHO_PROCESS may answer.
import ctypes
import platform


def check(**p):
    number = {"x86_64": 252, "aarch64": 31}.get(platform.machine())
    if number is None:
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    own = libc.syscall(number, 1, 0)
    for which, name in ((3, "user"), (2, "group")):
        seen = libc.syscall(number, which, 0)
        if seen >= 0 and seen != own:
            return f"SANDBOX-ESCAPED another process of the {name} has I/O priority {seen:#x} (mine {own:#x})"
    return 1
