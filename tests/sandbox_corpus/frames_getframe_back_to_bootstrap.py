# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# sys._getframe().f_back up to the bootstrap: rewrite its locals, the job, the scratch path and its module
# globals, then read what the rewritten state would allow.
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    frame = sys._getframe()
    while frame is not None:
        local = frame.f_locals
        for name, value in list(local.items()):
            if isinstance(value, dict):
                value.pop("disable", None)
                value["require"] = []
            if name in ("scratch", "run_dir"):
                local[name] = "/"
        for name, value in list(frame.f_globals.items()):
            if isinstance(value, (tuple, frozenset)) and not name.startswith("__"):
                frame.f_globals[name] = type(value)()
        frame = frame.f_back
    for attempt in (lambda: open(p["secret_file"]).read(), lambda: open(p["world_file"]).read(),
                    lambda: open(f"/proc/{p['host_process']}/cmdline", "rb").read().decode(errors="replace")):
        try:
            return leak(attempt())
        except Exception:
            pass
    return 1
