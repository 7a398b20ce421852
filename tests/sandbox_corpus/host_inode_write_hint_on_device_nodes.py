# expect: forbidden
# expect-kernel: ok
# value: 1
# Write-lifetime hints kept on the device nodes the code may open (/dev/null, /dev/zero, /dev/urandom: root's, the
# host's where there is no minimal root), through read-only descriptors.
import fcntl
import os
import struct


def check(**p):
    for path in ("/dev/null", "/dev/zero", "/dev/urandom"):
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.fcntl(fd, 1036, struct.pack("Q", 3))
            hint = struct.unpack("Q", fcntl.fcntl(os.open(path, os.O_RDONLY), 1035, bytes(8)))[0]
        except OSError:
            continue
        if hint:
            return f"SANDBOX-ESCAPED {path}'s inode keeps hint {hint}"
    return 1
