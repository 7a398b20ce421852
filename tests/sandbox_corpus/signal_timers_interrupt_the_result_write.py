# expect: crashed|bad_result|ok
# expect-kernel: crashed|bad_result|ok
# Timers that fire after the check returns, while the bootstrap encodes and writes the result: a handler that
# writes half a frame on fd 3 and raises, ITIMER_VIRTUAL/PROF with default actions, and alarm().
import os
import signal


def half(*_):
    os.write(3, b'{"result": ')
    raise KeyboardInterrupt


def check(**p):
    signal.signal(signal.SIGALRM, half)
    signal.setitimer(signal.ITIMER_REAL, 0.0001, 0.0001)
    signal.setitimer(signal.ITIMER_VIRTUAL, 0.001, 0.001)
    signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
    return {"padding": ["x" * 100] * 400}
