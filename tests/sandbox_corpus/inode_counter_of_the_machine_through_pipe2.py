# expect: ok
# expect-kernel: ok
# value: 1
# The same counter through pipe2 with flags (os.pipe2: non-blocking, close-on-exec, packet mode), which is the call
# C libraries make for pipe() too: every pipe inode is numbered by the machine, whichever door made it. Where pipes
# are refused, both doors are.
import os


def check(**p):
    numbers = []
    for flags in (os.O_NONBLOCK | os.O_CLOEXEC, os.O_DIRECT, 0):
        try:
            r, w = os.pipe2(flags)
        except OSError:
            continue
        numbers.append(os.fstat(w).st_ino)
        os.close(r)
        os.close(w)
    if numbers:
        return f"SANDBOX-ESCAPED the machine's inode counter through pipe2: {numbers}"
    return 1
