# expect: forbidden
# expect-kernel: ok
# value: 1
# A seccomp filter of the code's own (native code, the hook off; the sandbox's filter let the code stack more) whose
# action is SECCOMP_RET_LOG: the kernel allows each call and writes an audit record of it (type 1326: uid, pid, comm,
# exe, syscall) whatever the host's audit rules, for every call the run makes. Measured on main with the kernel layers
# alone: the host's kernel log gained such records (printk rate-limited where no audit daemon runs) and the audit
# serial moved by 996 in one run of this snippet (1000 calls); where auditd runs, every record goes to the host's
# audit log on its disk (or overflows its backlog, which a hardened host's failure mode turns into a panic), as the
# Landlock denials the bootstrap silences would. Must: no filter of the code's own is installed.
import ctypes
import os
import struct

SECCOMP_SET_MODE_FILTER, SECCOMP_RET_LOG = 1, 0x7FFC0000
SECCOMP = {"x86_64": 317, "aarch64": 277}


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def check(**p):
    number = SECCOMP.get(os.uname().machine)
    if number is None:
        return 1  # another architecture: the sandbox's filter has no numbers for it and refuses to run there
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    code = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, SECCOMP_RET_LOG))  # ret SECCOMP_RET_LOG
    program = Program(1, ctypes.addressof(code))
    answer = libc.syscall(ctypes.c_long(number), ctypes.c_long(SECCOMP_SET_MODE_FILTER), ctypes.c_long(0),
                          ctypes.byref(program))
    if answer != 0:
        return 1
    for _ in range(1000):  # each call now an audit record in the host's kernel
        os.getppid()
    return "SANDBOX-ESCAPED a logging seccomp filter of the code's own was installed: every call is an audit record"
