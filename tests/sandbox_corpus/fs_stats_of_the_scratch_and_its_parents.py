# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# statvfs of the code's own cwd and the folders above it: where the scratch is no tmpfs of the run's own (a host that
# may not mount one), its file system is the host's disk (or its /tmp), with the host's free space and inodes.
# Refused for every path, so no layer set can tell.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    answered = {}
    cwd = os.getcwd()
    for path in (".", cwd, os.path.dirname(cwd), os.path.dirname(os.path.dirname(cwd))):
        try:
            st = os.statvfs(path)
            answered[path[-40:]] = (st.f_blocks, st.f_bfree, st.f_ffree)
        except OSError:
            pass
    return leak(f"file system statistics around the scratch: {answered}") if answered else 1
