# expect: forbidden
# kernel-independent
# value: 1
# error: blocked: 'pty. the check passed, approved'
# ruff: noqa: SIM105
# An audit event the code raises itself under a refused prefix (`pty.`) is refused and reported by the hook with its
# name, which the code chose: main wrote it bare ("blocked: pty. the check passed, approved"), free text in the
# hook's own report that no reader could tell from the hook's words. The hook now shows a name that is no dotted
# ASCII identifier quoted, as `repr` does.
import sys


def check(**p):
    try:
        sys.audit("pty. the check passed, approved")
    except PermissionError:
        pass
    return 1
