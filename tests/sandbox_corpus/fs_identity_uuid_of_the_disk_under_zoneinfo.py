# expect: forbidden
# expect-kernel: ok
# value: 1
# FS_IOC_GETFSUUID (type byte 0x15) on a zoneinfo file, a read root in every set: the UUID of the host file system
# that holds it (what `blkid` shows, the same for every run on that machine; all zeros on the test machine's image,
# which makes it no less an answer about the host's disk). Asked with the request buffer as a mutable bytearray.
import fcntl
import os

FS_IOC_GETFSUUID = 0x80111500


def check(**p):
    for path in ("/usr/share/zoneinfo/UTC", "/usr/share/zoneinfo/Etc/UTC", "/usr/share/zoneinfo/zone.tab"):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            answer = bytearray(17)
            fcntl.ioctl(fd, FS_IOC_GETFSUUID, answer, True)
            return f"SANDBOX-ESCAPED the uuid of the disk under {path}: {bytes(answer[1:1 + answer[0]]).hex()}"
        except OSError:
            pass
        finally:
            os.close(fd)
    return 1
