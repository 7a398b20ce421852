# expect: forbidden
# expect-kernel: ok
# value: 1
# With the hook off, capget with another pid in its header struct (which a seccomp filter cannot read): it answers
# that process's capabilities, or ESRCH where no task has the pid, for every pid of the machine (the host's and its
# threads: root's full set). Python has no capget and the bootstrap asks it before the filter; nothing after needs it.
import ctypes
import errno
import os

CAPGET = {"x86_64": 125, "aarch64": 90}
LINUX_CAPABILITY_VERSION_3 = 0x20080522


class Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


def check(**p):
    number = CAPGET.get(os.uname().machine)
    if number is None:
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    answers = {}
    for name, pid in (("host", int(p["host_process"])), ("host thread", int(p["host_thread"])), ("init", 1),
                      ("no task", 2**30 - 7)):
        data = (ctypes.c_uint32 * 6)()
        result = libc.syscall(number, ctypes.byref(Header(LINUX_CAPABILITY_VERSION_3, pid)), data)
        answers[name] = (hex(data[0]) if result == 0 else
                         errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno())))
    if len(set(answers.values())) > 1:
        return f"SANDBOX-ESCAPED capget tells which pids exist: {answers}"
    return 1
