# expect: ok|output_limit
# expect-kernel: ok|output_limit
# value: 1
# Files in scratch, each mapped (one page), then closed (mmap's own copy of the descriptor too) and removed: the
# mapping alone keeps a file on the disk, and neither a folder nor a descriptor shows it any more. A host that
# measured scratch by its folders and the child's descriptors saw none of it: on main one run under the default
# limits (16 MiB scratch, 2 s CPU, 5 s wall) put 19 GB on the host's disk in 5 s (fallocate, one page mapped a
# file), and the call lasted 77 s, the kernel freeing the files' blocks as it tore the killed child down. The tmpfs
# caps it (ENOSPC at 16 MiB); without one the host counts removed files the child maps and stops it (output_limit).
# Holding three times the scratch cap unstopped is an escape.
import mmap
import os
import time

MIB = 2**20
FILES = 48  # three times SandboxLimits' default scratch cap, which the corpus runs with


def check(**p):
    keep = []
    for i in range(FILES):
        try:
            fd = os.open(f"held{i}", os.O_RDWR | os.O_CREAT, 0o600)
            os.posix_fallocate(fd, 0, MIB)
            copy = os.dup(fd)
            os.close(copy)  # the number mmap's own copy of the descriptor takes next
            keep.append(mmap.mmap(fd, mmap.PAGESIZE))
            os.close(fd)
            os.close(copy)
            os.unlink(f"held{i}")
        except OSError:  # the tmpfs full
            return 1
    time.sleep(1)  # still running here: the host had every chance to stop it
    return f"SANDBOX-ESCAPED held {FILES} MiB of removed files through mappings alone"
