# expect: forbidden
# expect-kernel: ok
# value: 1
# The reading half of the channel: write-lifetime hints an earlier run (or the host) left on the stdlib's files and
# device nodes, read through fresh descriptors (no ownership needed). The corpus runs its snippets in four layer sets
# one after another, so the writers of a set that could write them (host_inode_write_hint_on_*) left them for this
# reader in the next. Reading must be refused too.
import fcntl
import os
import struct


def check(**p):
    for path in (os.__file__, "/dev/null", "/dev/zero", "/dev/urandom"):
        try:
            fd = os.open(path, os.O_RDONLY)
            hint = struct.unpack("Q", fcntl.fcntl(fd, 1035, bytes(8)))[0]
        except OSError:
            continue
        if hint:
            return f"SANDBOX-ESCAPED {path} carries hint {hint} from an earlier run"
    return 1
