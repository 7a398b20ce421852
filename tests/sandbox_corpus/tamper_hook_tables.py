# expect: forbidden
# expect-kernel: ok
# The bootstrap's module globals are reachable; the audit hook must not depend on them (nor on anything else the
# code can rebind): empty every container and constant it can find there, then import ctypes.
import sys


def check(**p):
    boot = sys.modules["__main__"]
    for name, value in list(vars(boot).items()):
        if isinstance(value, (set, dict, list)) and not name.startswith("__"):
            value.clear()
        elif isinstance(value, (frozenset, tuple, str)) and not name.startswith("__"):
            setattr(boot, name, type(value)())
    import ctypes
    return str(ctypes)
