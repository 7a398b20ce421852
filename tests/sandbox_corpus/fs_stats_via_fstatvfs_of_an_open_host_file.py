# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The same statistics by descriptor: os.fstatvfs on a stdlib file and a zoneinfo file opened for reading (fstatfs),
# which a filter on the path-based call alone would miss. No host file system may answer.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    answered = {}
    for path in (os.__file__, "/usr/share/zoneinfo/UTC"):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            st = os.fstatvfs(fd)
            answered[path] = (st.f_blocks, st.f_bfree, st.f_files, st.f_ffree)
        except OSError:
            pass
        finally:
            os.close(fd)
    return leak(f"host file system statistics by descriptor: {answered}") if answered else 1
