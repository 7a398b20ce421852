# expect: forbidden
# expect-kernel: ok
# value-kernel: 2
# error: loading bytecode
# The audit hook binds what it uses as defaults of its own, so that nothing the code changes later changes it, but it
# named `OSError` as a global: looked up when it ran, in its module's dict, which a refusal it makes without a report
# (a hard link within the scratch, a listing of the hidden site-packages) hands the code as the hook frame's
# `f_globals`. Put another class there, then load crafted bytecode by a standard-library .pyc name that does not
# exist: the hook's read of that file failed with an OSError its `except` no longer matched, which left the hook
# before it reported: the bytecode was refused, the attempt unreported, and the run answered as if nothing had been
# tried (`ok`). A report whose write fails (a channel made non-blocking and full) took the same way out. Now
# `forbidden`, its report in place; with the hook off there is no hook frame (2).
import os
import sys


def hook_globals():
    """The audit hook's module globals, from the frame of a refusal it makes without a report."""
    with open("a", "w"):
        pass
    attempts = [lambda: os.link("a", "b"), lambda: os.symlink("a", "c")]
    attempts += [lambda folder=folder: os.listdir(os.path.join(folder, "site-packages")) for folder in sys.path]
    for attempt in attempts:
        try:
            attempt()
        except OSError as exc:
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            if tb is not None and "read_prefixes" in tb.tb_frame.f_code.co_varnames:
                return tb.tb_frame.f_globals
    return None


def check(**p):
    names = hook_globals()
    if names is None:
        return 2
    names["OSError"] = ZeroDivisionError
    names["PermissionError"] = ZeroDivisionError
    loader = sys.modules["_frozen_importlib_external"]._compile_bytecode
    where = os.path.join(os.path.dirname(os.__file__), "__pycache__", "no_such_module.cpython-311.pyc")
    try:
        loader(b"\xe3" + bytes(40), "crafted", where)
    except Exception as exc:
        return "crafted bytecode refused unreported: " + type(exc).__name__
    return 3
