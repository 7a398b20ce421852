# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105
# Memory that RLIMIT_AS never counts, held through descriptors: memfds filled up to the file size limit (64 of
# them held 60 MiB beyond the memory limit) and pipes grown to 1 MiB with F_SETPIPE_SZ (30 MiB), all in kernel
# memory and none of it in the child's address space. The filter refuses memfd_create and F_SETPIPE_SZ, and now pipes
# themselves (their inode numbers are the machine's counter), which held 2 MiB at 64 KiB each with every descriptor.
import fcntl
import os
import signal

F_SETPIPE_SZ = 1031
LIMIT = 8 * 2**20


def fill(fd):
    os.set_blocking(fd, False)
    held = 0
    try:
        while held < 2**20:
            held += os.write(fd, b"x" * 65536)
    except OSError:  # a full pipe, the file size limit
        pass
    return held


def check(**p):
    try:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except Exception:
        pass
    fds, held = [], 0
    try:
        for i in range(64):
            fds.append(os.memfd_create(f"hold{i}"))
            held += fill(fds[-1])
    except Exception:
        pass
    try:
        for _ in range(32):
            r, w = os.pipe()
            fds += [r, w]
            try:
                fcntl.fcntl(w, F_SETPIPE_SZ, 2**20)
            except OSError:
                pass
            held += fill(w)
    except Exception:
        pass
    for fd in fds:
        os.close(fd)
    return 1 if held <= LIMIT else f"SANDBOX-ESCAPED {held} bytes held outside RLIMIT_AS"
