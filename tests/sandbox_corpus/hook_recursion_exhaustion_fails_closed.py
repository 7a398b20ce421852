# expect: ok|forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Starve the audit hook of stack: find the call depth at which a hook can no longer be entered (sys.audit raises
# RecursionError there) and open the host's secret at exactly that depth. The hook never runs, so nothing is
# reported, but the open must fail closed (the RecursionError aborts it), never go through unchecked.
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def at_depth(depth, action):
    if depth:
        return at_depth(depth - 1, action)
    return action()


def probe():
    sys.audit("coworkenv.probe")
    return True


def check(**p):
    def read_secret():
        with open(p["secret_file"]) as fh:
            return fh.read()

    sys.setrecursionlimit(200)
    for depth in range(120, 200):
        try:
            at_depth(depth, probe)
            continue
        except RecursionError:
            pass
        try:
            return leak("read at the starved depth: " + at_depth(depth, read_secret))
        except RecursionError:
            return 1
        except OSError:
            return 1
    return 1
