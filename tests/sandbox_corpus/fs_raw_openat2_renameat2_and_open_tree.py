# expect: forbidden
# expect-kernel: ok
# value: 1
# Path syscalls Python has no wrapper for, raw with the hook off: openat2 (its RESOLVE_* flags change how a path
# resolves: through magic links, across mounts, in a given root), renameat2 exchanging a scratch file with a host file
# or leaving a whiteout, and open_tree cloning a host folder into a detached mount. Landlock judges openat2 and
# renames like their plain forms; the filter refuses the mount API. Each must fail; a descriptor, a swap or a mount
# that gets through is an escape.
import ctypes
import os
import platform

NR = {"openat2": (437, 437), "renameat2": (316, 276), "open_tree": (428, 428)}  # x86_64, aarch64
AT_FDCWD = -100
RENAME_EXCHANGE, RENAME_WHITEOUT = 2, 4
OPEN_TREE_CLONE = 1
RESOLVE_NO_XDEV, RESOLVE_NO_MAGICLINKS, RESOLVE_IN_ROOT = 0x01, 0x02, 0x10


class OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    column = 0 if platform.machine() == "x86_64" else 1

    def call(name, *args):
        return libc.syscall(ctypes.c_long(NR[name][column]), *args)

    for resolve in (0, RESOLVE_NO_XDEV, RESOLVE_NO_MAGICLINKS, RESOLVE_IN_ROOT):
        how = OpenHow(os.O_RDONLY, 0, resolve)
        fd = call("openat2", ctypes.c_int(AT_FDCWD), p["secret_file"].encode(), ctypes.byref(how),
                  ctypes.c_size_t(ctypes.sizeof(how)))
        if fd >= 0:
            return "SANDBOX-ESCAPED openat2 " + os.read(fd, 200).decode(errors="replace")
    with open("mine", "w") as fh:
        fh.write("scratch")
    for flags in (RENAME_EXCHANGE, RENAME_WHITEOUT):
        if call("renameat2", ctypes.c_int(AT_FDCWD), b"mine", ctypes.c_int(AT_FDCWD), p["host_file"].encode(),
                ctypes.c_uint(flags)) == 0:
            return f"SANDBOX-ESCAPED renameat2 {flags} swapped the host's file"
    tree = call("open_tree", ctypes.c_int(AT_FDCWD), os.path.dirname(p["secret_file"]).encode(),
                ctypes.c_uint(OPEN_TREE_CLONE))
    if tree >= 0:
        return "SANDBOX-ESCAPED open_tree cloned the secret's folder"
    return 1
