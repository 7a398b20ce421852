# expect: ok
# expect-kernel: ok
# value: 1
# Inode flags of host files (no-dump, no-atime, synchronous writes, ...) change through FS_IOC_SETFLAGS and
# FS_IOC_FSSETXATTR on a descriptor opened only for reading, which Landlock and the hook allow for the stdlib's
# files: the kernel asks only that the caller own the file, and a child that keeps the host's uid owns them. Landlock
# mediates ioctls on devices only. A flag that changes is put back at once, and the attempt is an escape. The
# filter refuses the file-system ioctl families by their type byte (the hook knows exact commands only).
import array
import fcntl
import os

FS_IOC_GETFLAGS, FS_IOC_SETFLAGS = 0x80086601, 0x40086602
FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR = 0x801C581F, 0x401C5820
FS_NODUMP_FL = 0x40
FS_XFLAG_NODUMP = 0x80


def check(**p):
    fd = os.open(os.__file__, os.O_RDONLY)
    try:
        flags = array.array("l", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        changed = array.array("l", [flags[0] ^ FS_NODUMP_FL])
        try:
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, changed, False)
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, flags, False)
            return "SANDBOX-ESCAPED FS_IOC_SETFLAGS changed a stdlib file's flags"
        except OSError:
            pass
        attr = bytearray(28)
        fcntl.ioctl(fd, FS_IOC_FSGETXATTR, attr, True)
        before = bytes(attr)
        attr[0] ^= FS_XFLAG_NODUMP
        try:
            fcntl.ioctl(fd, FS_IOC_FSSETXATTR, bytes(attr), False)
            fcntl.ioctl(fd, FS_IOC_FSSETXATTR, before, False)
            return "SANDBOX-ESCAPED FS_IOC_FSSETXATTR changed a stdlib file's flags"
        except OSError:
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    return 1
