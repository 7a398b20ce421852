# expect: forbidden
# ruff: noqa: SIM105, B023
# expect-kernel: ok
# value: 1
# Signal the host without kill(): make it the owner of the stdout pipe and the result channel (F_SETOWN,
# F_SETOWN_EX, FIOSETOWN), pick the signal (F_SETSIG SIGUSR2), switch on O_ASYNC and fill the pipe, so that the
# host's next read signals the host. The test's host records any SIGUSR2 it receives.
import fcntl
import os
import signal
import struct
import time

F_SETSIG, F_SETOWN_EX, F_OWNER_PID, FIOSETOWN = 10, 15, 1, 0x8901


def check(**p):
    parent = int(p["host_process"])
    for fd in (1, 2, 3):
        attempts = [
            lambda: fcntl.fcntl(fd, fcntl.F_SETOWN, parent),
            lambda: fcntl.fcntl(fd, F_SETOWN_EX, struct.pack("ii", F_OWNER_PID, parent)),
            lambda: fcntl.ioctl(fd, FIOSETOWN, struct.pack("i", parent)),
            lambda: fcntl.fcntl(fd, F_SETSIG, signal.SIGUSR2),
            lambda: fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC),
        ]
        for attempt in attempts:
            try:
                attempt()
            except Exception:
                pass
    try:  # a full pipe: the host's next read wakes the writers' owner (pipe capacity = the output cap)
        os.write(1, b"x" * 65536)
        time.sleep(0.2)
    except Exception:
        pass
    return 1
