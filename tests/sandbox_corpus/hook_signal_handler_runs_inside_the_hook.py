# expect: forbidden
# expect-kernel: ok
# value: 1
# A signal handler runs wherever the interpreter checks for signals, inside the audit hook too, and gets the hook's
# frame. This one, fired every 20 us, steers the hook two ways: while the hook is still undecided it raises OSError
# (an `except OSError` in the hook would swallow it and let the call through), once it has refused it writes
# `reason = None` into the hook's locals (which takes effect where frame.f_locals writes through, Python 3.13+:
# the bootstrap then reports the audit-hook layer missing). The calls: os.open of a standard-library folder (a
# directory descriptor the hook must never hand out: its open event has no dir_fd, so relative opens through one
# are judged against scratch while the kernel acts beside the stdlib) and a read of the secret file.
import os
import signal
import sys
import time

CALLS = [0]


def steer(signum, frame):
    CALLS[0] += 1
    if frame is None or frame.f_code.co_name != "hook" or "where" not in frame.f_locals:
        return
    seen = frame.f_locals
    if seen.get("reason") is not None:
        seen["reason"] = None
    elif CALLS[0] % 2:
        raise OSError("raised by a signal handler inside the audit hook")


def attempt(call):
    """The call's result once the hook let it through, or None after 100 refusals (each one is a report on the
    result channel, which has a cap) or 0.3 s (the run has 1 s of CPU)."""
    refused, end = 0, time.monotonic() + 0.3
    while time.monotonic() < end:
        try:
            return call()
        except PermissionError:
            refused += 1
            if refused > 100:
                return None
        except Exception:
            pass
    return None


def read(path):
    with open(path) as fh:
        return fh.read()


def check(secret_file, **p):
    hooked = False
    try:
        sys.audit("os.system", "is an audit hook watching?")
    except PermissionError:
        hooked = True
    folder = os.path.dirname(os.__file__)
    signal.signal(signal.SIGALRM, steer)
    signal.setitimer(signal.ITIMER_REAL, 0.00002, 0.00002)
    try:
        for what, call in (("a directory descriptor of " + folder, lambda: os.open(folder, os.O_RDONLY)),
                           ("the secret file", lambda: read(secret_file))):
            got = attempt(call)
            if got is not None and hooked:
                return report(f"SANDBOX-ESCAPED: the hook let through {what}: {got!r}"[:150])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
    return 1


def report(what):
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    try:  # the outcome is `forbidden` anyway: the refusal's report carries the marker to the host
        with open("/leak/" + what):
            pass
    except OSError:
        pass
    return what
