# expect: timeout
# limits: wall_seconds=1.5
# kernel-independent
# Freeze instead of looping: SIGSTOP to itself (and SIGTSTP/SIGTTOU, which a handler-less process obeys too)
# uses no CPU, so no CPU limit fires; the host's wall clock must still end the run and reap the stopped process.
import os
import signal


def check(**p):
    for sig in (signal.SIGTSTP, signal.SIGTTOU):
        signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGSTOP)
    return 1
