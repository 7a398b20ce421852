# expect: forbidden
# expect-kernel: ok
# value: 1
# A signal handler runs wherever the interpreter checks for signals, inside the audit hook too, and what it raises
# leaves the hook there: on main a refusal still being judged went unreported and the run was `ok`. The call here is
# an open of the secret file by a path of 100000 `/.` parts (the kernel refuses its length; the hook walks every
# part, for milliseconds) with a 1 ms wall timer armed before it: first a one-shot timer, which cuts the judgement
# short, then an interval one (each handler raising), which also cuts short whatever judges the call again. An
# attempt whose signal came before the hook began judging (the handler ran elsewhere, or at the hook's first
# instruction: a known limit, nothing of the call judged) is tried again. The value is 1 whatever the kernel does.
import os
import signal


class Cut(Exception):
    pass


HIT = [0]
INTERVALS = (0.0, 0.001)
HITS = [0]  # attempts whose judgement a handler cut short, in all


def cut(signum, frame):
    if frame is not None and frame.f_code.co_name == "hook" and "reason" in frame.f_locals:
        HIT[0] += 1
        HITS[0] += 1
    raise Cut()


def attempt(path, interval):
    """One open of `path` with a 1 ms timer armed: whether the handler cut the hook's judgement short."""
    HIT[0] = 0
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.001, interval)
        with open(path) as fh:
            fh.read()
    except (Cut, OSError):
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    return HIT[0] > 0


def check(secret_file, **p):
    folder, name = os.path.split(secret_file)
    path = folder + "/." * 100000 + "/" + name
    signal.signal(signal.SIGALRM, cut)
    try:
        for interval in INTERVALS:
            for _ in range(5):
                try:
                    if attempt(path, interval):
                        break
                except Cut:  # the handler ran outside the hook (late, in this frame): nothing was attempted
                    pass
    finally:
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
    if not HITS[0]:  # no timer came while the hook judged (no hook, a slow machine): the plain attempt
        try:
            with open(secret_file) as fh:
                fh.read()
        except OSError:
            pass
    return 1
