# expect: ok
# value: 1
# A directory tree deeper than Python's recursion limit, left in scratch for the host to clean up: the host must
# remove it (no run directory may survive) and never raise RecursionError out of run_sandboxed. Full and degraded
# modes only: the host's cleanup is the same in every mode without a tmpfs scratch, and each nested rmdir costs
# about a millisecond on a journalling file system.
import os


def check(**p):
    path = "d"
    for _ in range(1100):  # past the host interpreter's recursion limit of 1000
        os.mkdir(path)
        path += "/d"
    with open(path[:-2] + "/leftover.txt", "w") as fh:
        fh.write("left behind")
    return 1
