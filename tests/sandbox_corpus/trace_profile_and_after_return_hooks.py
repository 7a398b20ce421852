# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: ok|bad_result
# value: 1
# Code that would run after the function returns, inside the bootstrap: trace and profile functions (sys and
# threading), atexit, a finalizer, a timer signal handler and faulthandler's watchdog writing to the channel.
# Each forges a second result; the host must take none of them for the real one.
import atexit
import faulthandler
import os
import signal
import sys
import threading
import weakref


def forge(*_):
    try:
        os.write(3, b'{"result":"forged after return"}\n')
    except Exception:
        pass
    return forge


class Marker:
    pass


KEEP = Marker()


def check(**p):
    for install in (lambda: atexit.register(forge), lambda: weakref.finalize(KEEP, forge),
                    lambda: signal.signal(signal.SIGALRM, forge), lambda: signal.setitimer(signal.ITIMER_REAL, 0.001),
                    lambda: faulthandler.dump_traceback_later(0.001, file=3), lambda: threading.settrace(forge),
                    lambda: threading.setprofile(forge), lambda: sys.setprofile(forge), lambda: sys.settrace(forge)):
        try:
            install()
        except Exception:
            pass
    return 1
