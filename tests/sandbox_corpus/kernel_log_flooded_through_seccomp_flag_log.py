# expect: forbidden
# expect-kernel: ok
# value: 1
# A seccomp filter of the code's own installed with SECCOMP_FILTER_FLAG_LOG (native code, the hook off): every action
# of it but ALLOW is written to the host's audit log (the sandbox's own refusals, ERRNO actions of a filter without
# the flag, are not), so a filter answering getpgid with EPERM turns each call into an audit record (type 1326), a
# flood of the host's kernel log or, where auditd runs, of its audit log on disk. Escaped on main with the kernel
# layers alone (the install answered 0). Must: no filter of the code's own is installed, whatever its flags.
import ctypes
import os
import struct

SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG = 1, 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
NUMBERS = {"x86_64": (317, 121), "aarch64": (277, 155)}  # seccomp, getpgid


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def check(**p):
    numbers = NUMBERS.get(os.uname().machine)
    if numbers is None:
        return 1  # another architecture: the sandbox's filter has no numbers for it and refuses to run there
    seccomp, getpgid = numbers
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    code = ctypes.create_string_buffer(b"".join((
        struct.pack("HBBI", 0x20, 0, 0, 0),  # ld [nr]
        struct.pack("HBBI", 0x15, 0, 1, getpgid),  # jeq getpgid
        struct.pack("HBBI", 0x06, 0, 0, SECCOMP_RET_ERRNO | 1),  # ret ERRNO(EPERM): logged under the flag
        struct.pack("HBBI", 0x06, 0, 0, SECCOMP_RET_ALLOW),
    )))
    program = Program(4, ctypes.addressof(code))
    answer = libc.syscall(ctypes.c_long(seccomp), ctypes.c_long(SECCOMP_SET_MODE_FILTER),
                          ctypes.c_long(SECCOMP_FILTER_FLAG_LOG), ctypes.byref(program))
    if answer != 0:
        return 1
    refused = 0
    for _ in range(1000):
        try:
            os.getpgid(0)
        except OSError:
            refused += 1
    return f"SANDBOX-ESCAPED a seccomp filter of the code's own with FLAG_LOG: {refused} refusals logged"
