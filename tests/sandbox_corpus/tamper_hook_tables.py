# expect: forbidden
# The bootstrap's module globals are reachable; the audit hook must not depend on them.
import sys


def check(**p):
    boot = sys.modules["__main__"]
    boot.BLOCKED_MODULES = frozenset()
    boot.BLOCKED_EVENTS = frozenset()
    boot.WRITE_EVENTS.clear()
    boot.READ_EVENTS.clear()
    import ctypes
    return str(ctypes)
