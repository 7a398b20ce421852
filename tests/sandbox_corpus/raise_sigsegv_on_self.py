# expect: crashed
import os
import signal


def check(**p):
    os.kill(os.getpid(), signal.SIGSEGV)
