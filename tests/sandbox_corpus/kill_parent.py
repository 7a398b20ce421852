# expect: forbidden
# expect-kernel: exception
import os
import signal


def check(**p):
    os.kill(int(p["host_process"]), signal.SIGKILL)
    return 1.0
