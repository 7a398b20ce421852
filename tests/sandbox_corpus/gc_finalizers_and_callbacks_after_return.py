# expect: forbidden
# expect-kernel: ok|bad_result|crashed
# ruff: noqa: SIM105, SIM115
# After a refused read (a violation the host must see), code left to run after the check returns: a __del__ on the
# returned value, gc.callbacks, weakref.finalize, atexit, a SIGALRM timer. Each writes a clean result frame on
# fd 3 and exits 0, hoping the host takes it instead of the violation.
import atexit
import gc
import os
import signal
import weakref

FORGED = b'\n{"result": 1.0}\n'


def forge(*_):
    try:
        os.write(3, FORGED)
    finally:
        os._exit(0)


class Bomb(dict):
    def __del__(self):
        forge()


def check(**p):
    try:
        open(p["secret_file"])
    except Exception:
        pass
    gc.callbacks.append(lambda phase, info: forge())
    atexit.register(forge)
    anchor = Bomb()
    weakref.finalize(anchor, forge)
    signal.signal(signal.SIGALRM, forge)
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    cycle = Bomb()
    cycle["self"] = cycle
    del cycle
    return Bomb(score=0.0)
