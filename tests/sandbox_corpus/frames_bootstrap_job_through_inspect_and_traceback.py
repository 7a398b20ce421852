# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The stdlib's own frame walkers: inspect.currentframe() with getouterframes (no source context, so no file is read)
# and traceback.walk_stack. Every frame they reach above the code's must hold none of the host's job.
import inspect
import traceback

HOST_KEYS = ("cgroup", "host_pid", "limits", "disable", "require", "missing", "lib_dirs", "run_dir")


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    frames = [info.frame for info in inspect.getouterframes(inspect.currentframe(), 0)]
    frames += [frame for frame, _ in traceback.walk_stack(None)]
    found = {(frame.f_code.co_name, name) for frame in frames for name, value in frame.f_locals.items()
             if name in HOST_KEYS or (isinstance(value, dict) and any(key in value for key in HOST_KEYS))}
    return leak(f"the bootstrap's host state: {sorted(found)}") if found else 1
