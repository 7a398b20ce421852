# expect: ok
# expect-kernel: ok
# value: 1
# limits: max_processes=2
# ruff: noqa: SIM105, SIM115
# The sandbox's SIGSYS handler answers the trapped times() and sysinfo() by writing the interrupted registers. A SIGSYS
# the code sends itself (os.kill, signal.raise_signal, from a thread: no audit event) is no trap: answered as one, it
# would overwrite whatever call or instruction it interrupted (kill's own result read as ENOSYS), at a moment the
# code's timing picks. The handler leaves such a signal alone: the calls return as they would, the answers stay fixed.
import os
import signal
import threading


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    try:
        os.kill(os.getpid(), signal.SIGSYS)
        signal.raise_signal(signal.SIGSYS)
    except OSError as exc:
        return leak(f"a SIGSYS of the code's own rewrote the call it interrupted: {exc!r}")
    pid = os.getpid()
    sender = threading.Thread(target=lambda: [os.kill(pid, signal.SIGSYS) for _ in range(50)])
    sender.start()
    total = sum(len(str(n)) for n in range(20000))
    sender.join()
    if total != 88890 or tuple(os.times()) != (0.0,) * 5:
        return leak(f"after SIGSYS from a thread: {total}, {tuple(os.times())}")
    return 1
