# expect: forbidden
# expect-kernel: ok
# value: 1
# The write-lifetime hint commands called raw with the hook off (ctypes): F_SET_RW_HINT and the per-file
# F_SET_FILE_RW_HINT on a stdlib file, read back with F_GET_RW_HINT through another descriptor.
import ctypes
import os


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    for command, value in ((1038, 2), (1036, 2)):
        fd = os.open(os.__file__, os.O_RDONLY)
        libc.fcntl(fd, command, ctypes.byref(ctypes.c_uint64(value)))
        hint = ctypes.c_uint64(0)
        if libc.fcntl(os.open(os.__file__, os.O_RDONLY), 1035, ctypes.byref(hint)) == 0 and hint.value:
            return f"SANDBOX-ESCAPED the stdlib file keeps hint {hint.value} (command {command})"
    return 1
