# expect: crashed|memory_limit
# note: contained either way; once, late in a full test run, this crash was read as memory_limit (see docs/sandbox.md)
import os
import signal


def check(**p):
    os.kill(os.getpid(), signal.SIGSEGV)
