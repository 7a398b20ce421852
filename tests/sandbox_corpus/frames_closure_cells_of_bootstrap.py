# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok|crashed|bad_result
# value: 1
# func.__closure__[i].cell_contents = ... and __defaults__/__code__ swaps on every function reachable from the
# bootstrap module, then a write outside the scratch directory and a read of the host's secret.
import sys
import types


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def noop(*a, **k):
    return None


def check(**p):
    boot = vars(sys.modules["__main__"])
    for value in list(boot.values()):
        if isinstance(value, types.FunctionType):
            for cell in value.__closure__ or ():
                try:
                    cell.cell_contents = ("/",)
                except Exception:
                    pass
            try:
                value.__defaults__ = None
            except Exception:
                pass
            try:
                value.__code__ = noop.__code__
            except Exception:
                pass
    for attempt in (lambda: (open(p["tmp_target"], "w").close(), "wrote outside scratch")[1],
                    lambda: open(p["secret_file"]).read()):
        try:
            return leak(attempt())
        except Exception:
            pass
    return 1
