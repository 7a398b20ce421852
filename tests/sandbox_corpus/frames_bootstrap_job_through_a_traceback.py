# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The same host state reached without sys._getframe: an exception's traceback gives the code's frame, and f_back
# climbs from there into the bootstrap. Nothing the host wrote beyond code, entrypoint and payload may be there.
HOST_KEYS = ("cgroup", "host_pid", "limits", "disable", "require", "missing", "lib_dirs", "run_dir")


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    try:
        raise ValueError("climb")
    except ValueError as exc:
        frame = exc.__traceback__.tb_frame
    found = []
    while frame is not None:
        for name, value in frame.f_locals.items():
            if name in HOST_KEYS or (isinstance(value, dict) and any(key in value for key in HOST_KEYS)):
                found.append((frame.f_code.co_name, name, str(value)[:80]))
        frame = frame.f_back
    return leak(f"the bootstrap's host state: {found}") if found else 1
