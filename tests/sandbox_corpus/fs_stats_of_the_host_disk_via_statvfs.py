# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# os.statvfs of the standard library's folder (no audit event; Landlock does not cover statfs): the host disk's size,
# its free blocks and inodes, which change as the host and other runs write (a live view of their activity). No
# host file system may answer.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    answered = {}
    for path in (os.path.dirname(os.__file__), os.path.dirname(os.path.dirname(os.__file__))):
        try:
            st = os.statvfs(path)
            answered[path] = (st.f_blocks, st.f_bfree, st.f_files, st.f_ffree)
        except OSError:
            pass
    return leak(f"host disk blocks, free blocks, inodes, free inodes: {answered}") if answered else 1
