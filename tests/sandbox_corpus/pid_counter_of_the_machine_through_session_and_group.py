# expect: ok
# value: 1
# needs: pidns
# The run leads its own session and process group, so their ids are its pid: os.getsid(0), os.getpgrp() and
# os.getpgid(0) (no audit event; getsid and getpgid answer for the run itself) read the machine's pid counter where
# os.getpid() is not asked (a check that reads "who am I" looks innocent). In a pid namespace of its own all are 2.
import os


def check(**p):
    ids = {"getsid": os.getsid(0), "getpgrp": os.getpgrp(), "getpgid": os.getpgid(0)}
    if set(ids.values()) != {2}:
        return f"SANDBOX-ESCAPED the machine's pid counter through the session and group ids {ids}"
    return 1
