# expect: timeout
# limits: wall_seconds=1.5
# kernel-independent
import signal
import time


def check(**p):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        time.sleep(0.05)
