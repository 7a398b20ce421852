# expect: forbidden
# expect-kernel: ok
# value: 1
# The older door to the same filters: prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program) (native code, the hook off)
# stacks a filter of the code's own, here one whose action is SECCOMP_RET_LOG: every later call of the run becomes an
# audit record in the host's kernel (its kernel log, or its audit log on disk where auditd runs). Escaped on main with
# the kernel layers alone. Must: refused, as the seccomp syscall's SECCOMP_SET_MODE_FILTER is.
import ctypes
import os
import struct

PR_SET_SECCOMP, SECCOMP_MODE_FILTER, SECCOMP_RET_LOG = 22, 2, 0x7FFC0000


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    code = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, SECCOMP_RET_LOG))
    program = Program(1, ctypes.addressof(code))
    answer = libc.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(program),
                        ctypes.c_ulong(0), ctypes.c_ulong(0))
    if answer != 0:
        return 1
    for _ in range(1000):
        os.getppid()
    return "SANDBOX-ESCAPED prctl(PR_SET_SECCOMP) installed a logging filter of the code's own"
