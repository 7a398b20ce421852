# expect: ok
# value: 1
# expect-kernel: ok
# ruff: noqa: SIM105, SIM115
# Blocking SIGSYS (signal.pthread_sigmask, no audit event) before os.times(): the sandbox's handler, which fills the
# trapped call's buffer, could not run, and a call that returned anyway would hand back the leftover stack words. The
# kernel forces a blocked seccomp SIGSYS to its default action: the run died, no answer read. Since the stat family is
# trapped too (every open() asks fstat), Python's pthread_sigmask leaves SIGSYS out instead, so that a check blocking
# every signal goes on: the handler runs and answers zeros; a leftover word is an escape.
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
    if any(times):
        return leak(f"os.times() with SIGSYS blocked: {times}")
    return 1
