# expect: forbidden
# expect-kernel: ok
# value: 1
# Write-lifetime hints kept on the inodes of host folders the code may list (the stdlib's), through a directory
# descriptor: 2 to 3 bits per folder, hundreds of folders, a channel a later run reads.
import fcntl
import os
import struct


def check(**p):
    stdlib = os.path.dirname(os.__file__)
    for name in ("json", "email", "encodings"):
        path = os.path.join(stdlib, name)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.fcntl(fd, 1036, struct.pack("Q", 5))
            hint = struct.unpack("Q", fcntl.fcntl(os.open(path, os.O_RDONLY), 1035, bytes(8)))[0]
        except OSError:
            continue
        if hint:
            return f"SANDBOX-ESCAPED the folder {name} keeps hint {hint}"
    return 1
