# expect: forbidden
# expect-kernel: ok
# value: 1
# With the hook off, the file-system identity ioctls (type byte 0x15) through a raw syscall on an extension module of
# the stdlib (lib-dynload: where the hook is on, ctypes is refused): the sysfs path and UUID of the host disk, and
# every other command number of the family (a kernel may add readers: 6.17 added a third), so the filter must refuse
# the type byte, not the commands it knows.
import ctypes
import glob
import os


def check(**p):
    found = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "lib-dynload", "*.so")))
    if not found:
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(found[0], os.O_RDONLY)
    answered = []
    try:
        for number in range(4):
            for size in (17, 129, 16):
                command = (2 << 30) | (size << 16) | (0x15 << 8) | number  # _IOR(0x15, number, size)
                buf = ctypes.create_string_buffer(size)
                if libc.ioctl(fd, ctypes.c_ulong(command), buf) == 0:
                    answered.append((hex(command), buf.raw[:24].hex()))
    finally:
        os.close(fd)
    return f"SANDBOX-ESCAPED file-system identity ioctls answered: {answered}" if answered else 1
