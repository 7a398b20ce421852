# expect: forbidden
# expect-kernel: ok
# value: 1
# FS_IOC_GETFSSYSFSPATH (type byte 0x15) on a file the code wrote in its scratch: where no tmpfs is mounted for the
# scratch (the three degraded sets) it lies in the host's temp folder, and the answer names the host's block device
# and file system (`ext4/vda` here); a run's own tmpfs has no sysfs path (ENOTTY).
import fcntl
import os

FS_IOC_GETFSSYSFSPATH = 0x80811501


def check(**p):
    with open("mine.txt", "w") as fh:
        fh.write("x")
    fd = os.open("mine.txt", os.O_RDONLY)
    try:
        answer = fcntl.ioctl(fd, FS_IOC_GETFSSYSFSPATH, bytes(129))
    except OSError:
        return 1
    finally:
        os.close(fd)
    return f"SANDBOX-ESCAPED the scratch's disk: {answer[1:].split(bytes(1))[0]}"
