# expect: ok
# value: 1
# needs: mountns
# ruff: noqa: SIM105, SIM115
# The run's own file systems (the minimal root, /dev, the scratch, the covers of hidden folders) are tmpfs mounts
# made for the run, and each new superblock takes the lowest free number of the machine's one table of anonymous
# devices: os.stat's st_dev (no audit event) of "/", "/dev" or "." read 0:40-0:43 for a run alone and 0:52-0:55
# beside one concurrent run, a live count of the in-memory file systems mounted on the whole machine (other runs',
# containers', the host's). The sandbox shows its own mounts at fixed numbers at the top of the anonymous range
# (0:1048560 and up, in the order it mounts them); any other anonymous number read there is the machine's count.
import os
import pathlib

FIXED_FROM = 0xFFFF0


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    for path in ("/", "/dev", ".", "/dev/null", "/proc", "/tmp"):
        for how, stat in (("stat", os.stat), ("lstat", os.lstat), ("pathlib", lambda s: pathlib.Path(s).stat())):
            try:
                dev = stat(path).st_dev
            except OSError:
                continue
            if os.major(dev) == 0 and os.minor(dev) < FIXED_FROM:
                seen[f"{how} {path}"] = f"0:{os.minor(dev)}"
    return leak(f"the machine's anonymous device count: {seen}") if seen else 1
