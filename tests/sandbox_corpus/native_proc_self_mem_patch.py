# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Patch this process's own memory through /proc/self/mem (to overwrite the hook or the seccomp-free code paths),
# or map it: every route must be closed.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    for flags in (os.O_RDWR, os.O_RDONLY):
        try:
            os.open("/proc/self/mem", flags)
            return leak(f"opened /proc/self/mem with flags {flags}")
        except Exception:
            pass
    try:
        with open("/proc/self/maps") as fh:
            return leak(fh.readline())
    except Exception:
        pass
    return 1
