# expect: crashed
# A signal without a name (real-time) must still be reported, not crash the host's reporting.
import os


def check(**p):
    os.kill(os.getpid(), 40)
