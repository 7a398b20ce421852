# expect: forbidden
# expect-kernel: ok
# value: 1
# A signal handler runs wherever the interpreter checks for signals, inside the audit hook too, and gets the hook's
# frame: this one raises OSError only there, after the hook judged the path and before it decided, so that an
# `except OSError` in the hook would swallow it and let the call through. The call: os.open of a standard-library
# folder, a directory descriptor the hook must never hand out (its open event has no dir_fd, so relative opens
# through one would be judged against scratch while the kernel writes beside the stdlib).
import os
import signal
import sys

CALLS = [0]


def interrupt(signum, frame):
    CALLS[0] += 1
    if frame is not None and frame.f_code.co_name == "hook" and CALLS[0] % 2:
        seen = frame.f_locals
        if seen.get("reason") is None and "where" in seen:
            raise OSError("raised by a signal handler inside the audit hook")


def check(**p):
    hooked = False
    try:
        sys.audit("os.system", "is an audit hook watching?")
    except PermissionError:
        hooked = True
    target = os.path.dirname(os.__file__)
    signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.00002, 0.00002)
    fd, refused = None, 0
    try:
        for _ in range(3000):
            try:
                fd = os.open(target, os.O_RDONLY)
                break
            except PermissionError:
                refused += 1
                if refused > 100:  # each refusal is a report on the result channel, which has a cap
                    break
            except OSError:
                pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
    if fd is not None and hooked:
        what = f"SANDBOX-ESCAPED: the audit hook let a directory descriptor of {target} open"
        try:  # the outcome is `forbidden` anyway: the refusal's report carries the marker to the host
            with open("/leak/" + what):
                pass
        except OSError:
            pass
        return what
    return 1
