# expect: ok
# needs: min-root
# value: 1
# ruff: noqa: SIM105, SIM115
# os.stat of the device nodes the sandbox lets the code read (/dev/null, /dev/zero, /dev/urandom): no audit event, no
# Landlock right. The host's nodes were made with its /dev, at boot or at the container's start, and their times say
# when (the uptime again, or how long the container has run). Nodes of the run's own are made as it starts: none may
# be older than a minute.
import os
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    now, old = time.time(), {}
    for path in ("/dev/null", "/dev/zero", "/dev/urandom"):
        try:
            st = os.stat(path)
        except OSError:
            continue
        ages = [now - moment for moment in (st.st_atime, st.st_mtime, st.st_ctime)]
        if max(ages) > 60:
            old[path] = round(max(ages))
    return leak(f"seconds since the host's /dev was made: {old}") if old else 1
