# expect: forbidden
# expect-kernel: exception
import os
import signal


def check(**p):
    os.kill(os.getppid(), signal.SIGKILL)
    return 1.0
