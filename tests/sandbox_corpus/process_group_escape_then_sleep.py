# expect: timeout
# limits: wall_seconds=1.5
# kernel-independent
# ruff: noqa: SIM105
# Leave the process group the host kills: setsid, setpgid, setpgrp; ignore what can be ignored; sleep forever.
import os
import signal
import time


def check(**p):
    for move in (os.setsid, lambda: os.setpgid(0, 0), os.setpgrp):
        try:
            move()
        except OSError:
            pass
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        time.sleep(10)
