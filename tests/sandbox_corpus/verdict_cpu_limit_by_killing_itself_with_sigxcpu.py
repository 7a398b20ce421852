# expect: crashed
# expect-kernel: crashed
# error: killed by SIGXCPU
# The same forged CPU-limit verdict through os.kill of its own pid (allowed: a signal to itself), then a sleep while
# the signal is delivered: main read it as `cpu_limit` in all four sets, with no CPU spent.
import os
import signal
import time


def check(**p):
    os.kill(os.getpid(), signal.SIGXCPU)
    time.sleep(1)
    return "SANDBOX-ESCAPED the code outlived its own SIGXCPU"
