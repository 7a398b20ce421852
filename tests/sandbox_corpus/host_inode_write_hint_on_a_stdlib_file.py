# expect: forbidden
# expect-kernel: ok
# value: 1
# State left on a host file: a write-lifetime hint (fcntl F_SET_RW_HINT, no audit event for the command) is kept on the
# inode of a stdlib file the code may read, where the code keeps the host's uid (its owner), and any later run or host
# process reads it back (F_GET_RW_HINT) through a fresh descriptor. Neither command may answer.
import contextlib
import fcntl
import os
import struct

F_GET_RW_HINT, F_SET_RW_HINT = 1035, 1036


def check(**p):
    path = os.__file__
    fd = os.open(path, os.O_RDONLY)
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, F_SET_RW_HINT, struct.pack("Q", 4))
    again = os.open(path, os.O_RDONLY)
    try:
        hint = struct.unpack("Q", fcntl.fcntl(again, F_GET_RW_HINT, bytes(8)))[0]
    except OSError:
        return 1
    return f"SANDBOX-ESCAPED the host file's inode keeps hint {hint}" if hint else 1
