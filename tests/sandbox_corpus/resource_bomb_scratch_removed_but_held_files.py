# expect: ok|output_limit
# expect-kernel: ok|output_limit
# value: 1
# limits: wall_seconds=8
# ruff: noqa: SIM105
# Files written in scratch, removed and held open (also as mmap copies): no folder lists them any more, so a host
# that measures scratch by walking it (no tmpfs: an unprivileged host) saw none of the 60 MiB they kept on its disk.
# The tmpfs caps them (ENOSPC at 16 MiB); without one the host counts the child's removed-but-open files and stops
# it (output_limit). Holding twice the scratch cap unstopped is an escape.
import mmap
import os
import signal
import time

SCRATCH_BYTES = 16 * 2**20  # SandboxLimits' default, which the corpus runs with


def check(**p):
    try:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except Exception:
        pass
    held, keep = 0, []
    for i in range(60):
        try:
            fd = os.open(f"held{i}", os.O_RDWR | os.O_CREAT, 0o600)
            os.unlink(f"held{i}")
        except OSError:
            break
        written = 0
        try:
            while written < 2**20:
                written += os.write(fd, b"x" * 65536)
        except OSError:  # the file size limit, or the tmpfs full
            pass
        try:
            keep.append(mmap.mmap(fd, written))  # holds a copy of the descriptor
            os.close(fd)
        except (OSError, ValueError):
            keep.append(fd)
        held += written
        time.sleep(0.05)  # the host measures every 0.1 s
    if held > 2 * SCRATCH_BYTES:
        time.sleep(1)  # still running here: the host had every chance to stop it
        return f"SANDBOX-ESCAPED held {held} bytes of removed files"
    return 1
