# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Everything the process can say about its start without opening a file: os.environ, posix.environ (copied at
# start-up), environb, sys.argv/orig_argv, confstr, and the auxiliary vector through /proc/self/auxv.
import os
import posix
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(secret_name="", **p):
    seen = repr((dict(os.environ), dict(posix.environ), dict(os.environb), sys.argv, sys.orig_argv,
                 os.confstr("CS_PATH") if hasattr(os, "confstr") else ""))
    try:
        with open("/proc/self/environ", "rb") as fh:
            seen += repr(fh.read())
    except Exception:
        pass
    return leak(secret_name) if secret_name and secret_name in seen else 1
