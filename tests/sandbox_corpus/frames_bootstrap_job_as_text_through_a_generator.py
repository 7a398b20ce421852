# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Frames reached from the side, a running generator's caller chain, searched as data: any dict in any bootstrap frame
# keyed by the host's pid, and any text naming a cgroup's process list (the join file of a run's memory or pids
# group, under the host's own group: its container or service).
import sys

MARKER = "cgroup" + ".procs"  # split so this source, which the bootstrap holds, does not match itself


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def found_in(value, depth=0):
    if isinstance(value, str):
        return [value[:80]] if MARKER in value and value != MARKER else []
    if isinstance(value, dict) and depth < 5:
        hits = ["host_pid"] if "host_pid" in value else []
        return hits + [hit for item in list(value.values()) for hit in found_in(item, depth + 1)]
    if isinstance(value, (list, tuple)) and depth < 5:
        return [hit for item in value for hit in found_in(item, depth + 1)]
    return []


def climb():
    frame = sys._getframe()
    while frame is not None:
        yield frame
        frame = frame.f_back


def check(**p):
    found = [hit for frame in climb() if frame.f_code.co_name != "check"
             for value in list(frame.f_locals.values()) for hit in found_in(value)]
    return leak(f"the bootstrap's host state: {found[:4]}") if found else 1
