# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Read-only walk up sys._getframe().f_back into the bootstrap's frames: what the host wrote in the job besides the
# call (the run's cgroup paths, which name the host's container or service, the host's pid, its limits, which layers
# are off and why) must be gone from every frame above the code's before it runs.
import sys

HOST_KEYS = ("cgroup", "host_pid", "limits", "disable", "require", "missing", "lib_dirs", "run_dir")


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def host_state(frame):
    found = []
    while frame is not None:
        for name, value in frame.f_locals.items():
            if name in HOST_KEYS:
                found.append((frame.f_code.co_name, name, str(value)[:60]))
            if isinstance(value, dict):
                found += [(frame.f_code.co_name, key, str(value[key])[:60]) for key in HOST_KEYS if key in value]
        frame = frame.f_back
    return found


def check(**p):
    found = host_state(sys._getframe())
    return leak(f"the bootstrap's host state: {found}") if found else 1
