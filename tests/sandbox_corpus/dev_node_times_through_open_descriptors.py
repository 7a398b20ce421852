# expect: ok
# needs: min-root
# value: 1
# ruff: noqa: SIM105, SIM115
# The same times by descriptor and without following links: os.fstat on /dev/null and /dev/urandom opened for
# reading (allowed: the C library and the stdlib read them) and os.lstat of each. None may be older than a minute.
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
    for path in ("/dev/null", "/dev/urandom", "/dev/zero"):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            stats = (os.fstat(fd), os.lstat(path))
        finally:
            os.close(fd)
        age = max(now - moment for st in stats for moment in (st.st_mtime, st.st_ctime))
        if age > 60:
            old[path] = round(age)
    return leak(f"seconds since the host's /dev was made: {old}") if old else 1
