# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The traceback of a refusal: walk tb_next/tb_frame into the audit hook's own frame, read its defaults
# (f_locals of the hook), and try to swap them through the function's __defaults__ found by gc or frame.f_code.
import gc


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    try:
        open(p["secret_file"])
    except PermissionError as exc:
        tb = exc.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code.co_name == "hook":
                for ref in gc.get_referrers(frame.f_code):
                    if callable(ref) and hasattr(ref, "__defaults__"):
                        ref.__defaults__ = tuple(() if isinstance(d, tuple) else d for d in ref.__defaults__)
            tb = tb.tb_next
    except Exception:
        pass
    try:
        with open(p["secret_file"]) as fh:
            return leak(fh.read())
    except Exception:
        return 1
