# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The host started the child with its standard input open on the host's /dev/null (a spawn file action, before any
# namespace): os.fstat(0) (no audit event, no path for Landlock or the minimal root to judge) gave that node's times,
# when the host's /dev was made (at boot or at the container's start: the uptime the time namespace hides), in all
# four sets, the full set's fresh /dev notwithstanding. Every route to descriptor 0: os.fstat, os.stat of the number,
# sys.stdin and sys.__stdin__, a duplicate of it. None may be older than a minute.
import os
import sys
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    now, old = time.time(), {}
    routes = {"fstat(0)": lambda: os.fstat(0), "stat(0)": lambda: os.stat(0)}
    for name, stream in (("sys.stdin", sys.stdin), ("sys.__stdin__", sys.__stdin__)):
        if stream is not None:
            routes[name] = lambda stream=stream: os.fstat(stream.fileno())
    for name, route in routes.items():
        try:
            st = route()
        except OSError:
            continue
        age = max(now - st.st_mtime, now - st.st_ctime)
        if age > 60:
            old[name] = round(age)
    try:
        copy = os.dup(0)
    except OSError:
        copy = -1
    if copy >= 0:
        try:
            st = os.fstat(copy)
            if now - st.st_ctime > 60:
                old["dup(0)"] = round(now - st.st_ctime)
        finally:
            os.close(copy)
    return leak(f"seconds since the host's /dev was made, through stdin: {old}") if old else 1
