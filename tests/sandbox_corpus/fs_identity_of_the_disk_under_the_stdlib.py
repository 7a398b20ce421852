# expect: forbidden
# expect-kernel: ok
# value: 1
# The generic file-system ioctls that read (type byte 0x15, Linux 6.5+) answer on any descriptor of a file, opened
# for reading only, with no audit event but the ioctl's own and no check on the command: FS_IOC_GETFSSYSFSPATH names
# the file system's type and the host's block device it lies on (`ext4/vda` here) and FS_IOC_GETFSUUID its UUID (the
# host disk's, a fingerprint of the machine). The stdlib is a read root in every set, so this asked the host's disk.
import fcntl
import os

FS_IOC_GETFSUUID, FS_IOC_GETFSSYSFSPATH = 0x80111500, 0x80811501


def check(**p):
    fd = os.open(os.__file__, os.O_RDONLY)
    learned = []
    try:
        for name, command, size in (("sysfs path", FS_IOC_GETFSSYSFSPATH, 129), ("uuid", FS_IOC_GETFSUUID, 17)):
            try:
                answer = fcntl.ioctl(fd, command, bytes(size))
            except OSError:
                continue
            learned.append((name, answer[1:1 + answer[0]].hex() if name == "uuid" else answer[1:].split(bytes(1))[0]))
    finally:
        os.close(fd)
    return f"SANDBOX-ESCAPED the stdlib's disk: {learned}" if learned else 1
