# expect: crashed
# kernel-independent
# alarm() with SIGALRM at its default action: the child kills itself, which must read as a crash, never as a result.
import signal
import time


def check(**p):
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(1)
    time.sleep(2)
    return 1
