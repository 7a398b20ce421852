# expect: crashed
# expect-kernel: crashed
# ruff: noqa: SIM105, SIM115
# Blocking SIGSYS (signal.pthread_sigmask, no audit event) before os.times(): the sandbox's handler, which fills the
# trapped call's buffer, could not run, and a call that returned anyway would hand back the leftover stack words. The
# kernel forces a blocked seccomp SIGSYS to its default action: the run dies, no answer read.
import os
import signal


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGSYS})
    times = tuple(os.times())
    if any(value > 3600 for value in times):
        return leak(f"os.times() with SIGSYS blocked: {times}")
    return leak(f"os.times() answered with SIGSYS blocked: {times}")
