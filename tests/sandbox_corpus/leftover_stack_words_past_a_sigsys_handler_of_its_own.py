# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The trapped times(2) and sysinfo(2) are answered by the sandbox's SIGSYS handler, which fills their buffers. Code that
# puts a handler of its own on SIGSYS (signal.signal, no audit event) or ignores it would get the buffers back
# unfilled: the leftover words again (os.times()'s CPU figures, SC_PHYS_PAGES). Setting SIGSYS's action must be
# refused, the answers stay fixed.
import os
import signal


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    for action in (lambda *_: None, signal.SIG_IGN):
        try:
            signal.signal(signal.SIGSYS, action)
        except OSError:
            pass
        times, pages = tuple(os.times()), os.sysconf("SC_PHYS_PAGES")
        if any(value > 3600 for value in times) or not 0 < pages < 2**40:
            return leak(f"past a SIGSYS action of the code's own: os.times() {times}, SC_PHYS_PAGES {pages}")
    return 1
