# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Descriptor 0 was the host's /dev/null (opened by the host before the child entered any namespace): beside its
# times (dev_node_times_through_the_inherited_stdin), reading it where the full set gives the run a /dev of its own
# names the host's device file system (its device number, the node's inode) and shows the run a device node of the
# host's that no path reaches. The run's standard input must be nothing of the host's: no device node at all.
import os
import stat


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    try:
        st = os.fstat(0)
    except OSError:
        return 1
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return leak(f"stdin is a device node of the host's: device {st.st_dev}, inode {st.st_ino}, "
                    f"node {os.major(st.st_rdev)}:{os.minor(st.st_rdev)}")
    return 1
