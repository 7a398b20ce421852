# expect: forbidden
# expect-kernel: ok
# value-kernel: 1
# Disk blocks without a file size: fallocate with FALLOC_FL_KEEP_SIZE (and ZERO_RANGE or PUNCH_HOLE with it) leaves
# the size alone, so RLIMIT_FSIZE never looks, and the file system allocates the whole range at once. With the kernel
# layers alone (native code; a scratch on the host's disk, no tmpfs to cap it) one call put 4 GiB on the host's disk
# under a 1 MiB file size limit and a 16 MiB scratch (measured on main, verdict ok): the whole free space in one go,
# the host's own writes failing until the watch stopped the run. fallocate with a mode gets EOPNOTSUPP, as on a file
# system without them (glibc's posix_fallocate asks mode 0, which the file size limit checks).
import os


def check(**p):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    fd = os.open("kept", os.O_CREAT | os.O_RDWR)
    for mode in (0x01, 0x11, 0x03):  # KEEP_SIZE, ZERO_RANGE | KEEP_SIZE, PUNCH_HOLE | KEEP_SIZE
        if libc.fallocate(fd, mode, 0, 4 * 2**30) == 0 and os.fstat(fd).st_blocks * 512 > 2**20:
            return f"SANDBOX-ESCAPED fallocate mode {mode:#x} put {os.fstat(fd).st_blocks * 512} bytes on the disk"
    return 1
