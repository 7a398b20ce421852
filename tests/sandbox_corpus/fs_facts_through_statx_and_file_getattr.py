# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Raw with the hook off, what statx and file_getattr answer beyond os.stat's fields (no audit event; Python 3.11 asks
# the kernel with newfstatat, which answers none of them): the host disk's direct-I/O alignment (512 here: its logical
# block size) and atomic-write units, the file's inode flags (`stx_attributes`: immutable, append-only, encrypted,
# verity, what FS_IOC_GETFLAGS, refused, answers) and the flags its file system supports, a btrfs subvolume's id, and
# the mount's id, unique since boot (the host's root mount was the 28th made here; in a mount namespace every run's
# mounts are numbered on: how many mounts the machine has made, other runs' included); file_getattr (Linux 6.17) the
# fsxattr of FS_IOC_FSGETXATTR (refused): project id, extent size hints, XFS flags. Asked of a stdlib file, a zoneinfo
# file, /dev/null and the scratch, in all four sets. No call may answer any of them.
import ctypes
import os
import struct

STATX = {"x86_64": 332, "aarch64": 291}
FILE_GETATTR = 468  # the same on both
AT_FDCWD = -100
# STATX_BASIC_STATS, STATX_BTIME, STATX_MNT_ID, STATX_DIOALIGN, STATX_MNT_ID_UNIQUE, STATX_SUBVOL, STATX_WRITE_ATOMIC,
# STATX_DIO_READ_ALIGN
EVERYTHING = 0x7FF | 0x800 | 0x1000 | 0x2000 | 0x4000 | 0x8000 | 0x10000 | 0x20000
BEYOND_STAT = 0x1000 | 0x2000 | 0x4000 | 0x8000 | 0x10000 | 0x20000


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    number = STATX.get(os.uname().machine)
    for path in (os.__file__, "/usr/share/zoneinfo/UTC", "/dev/null", "."):
        buf = ctypes.create_string_buffer(256)
        if number is not None and libc.syscall(ctypes.c_long(number), ctypes.c_int(AT_FDCWD), path.encode(),
                                               ctypes.c_int(0), ctypes.c_uint(EVERYTHING), buf) == 0:
            mask, _, attributes = struct.unpack_from("IIQ", buf.raw, 0)
            supported = struct.unpack_from("Q", buf.raw, 0x38)[0]
            mount, (dio_memory, dio_offset) = struct.unpack_from("Q", buf.raw, 0x90)[0], struct.unpack_from(
                "II", buf.raw, 0x98)
            if mask & BEYOND_STAT or attributes or supported:
                return leak(f"statx of {path}: mask {mask:#x}, attributes {attributes:#x} of {supported:#x}, "
                            f"mount {mount}, direct I/O alignment {dio_memory}/{dio_offset}")
        attr = ctypes.create_string_buffer(64)
        if libc.syscall(ctypes.c_long(FILE_GETATTR), ctypes.c_int(AT_FDCWD), path.encode(), attr,
                        ctypes.c_size_t(24), ctypes.c_uint(0)) == 0:
            return leak(f"file_getattr of {path}: {attr.raw[:24].hex()}")
    return 1
