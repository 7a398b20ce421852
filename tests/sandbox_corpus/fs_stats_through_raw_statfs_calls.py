# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# With the hook off, statfs and fstatfs called raw (ctypes), past any Python-level wrapper: the kernel must refuse
# both for a host path and for a host file's descriptor. With the hook on, ctypes is refused.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(256)
    answered = []
    if libc.statfs(os.path.dirname(os.__file__).encode(), buf) == 0:
        answered.append("statfs")
    fd = os.open(os.__file__, os.O_RDONLY)
    try:
        if libc.fstatfs(fd, buf) == 0:
            answered.append("fstatfs")
    finally:
        os.close(fd)
    return leak(f"raw {answered} answered for a host file system") if answered else 1
