# expect: forbidden
# expect-kernel: ok
# value: 1
# error: blocked: 'socket.\x1b[2J
# ruff: noqa: SIM105
# Violations quote what the code named: an audit event it raises itself, a module name, an environment variable.
# Each carries terminal controls here; the host's reports (the error and every violation) show them escaped.
import os
import sys


def check(**p):
    for attempt in (lambda: sys.audit("socket.\x1b[2J\r\nviolations: none\u202e"),
                    lambda: __import__("pkg\x1b]52;c;eA==\x07.ctypes"),
                    lambda: os.putenv("LD_\x1b[2J\x85", "x")):
        try:
            attempt()
        except Exception:
            pass
    return 1
