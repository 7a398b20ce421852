# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: where Landlock is missing, libuuid (`_uuid`) is absent (it rewrote the host's
# clock file), and `uuid.uuid1()` and `uuid.getnode()` then look for the machine's MAC address by running `ip` and
# `ifconfig`: forbidden there (importing subprocess), answered in the other sets. Every set must answer them, with
# a node the machine does not give away (random: libuuid has no socket to ask either).
import uuid


def check(**p):
    first, second = uuid.uuid1(), uuid.uuid1()
    node = uuid.getnode()
    found = (first.version, second.version, first != second, 0 < node < 2**48)
    return 1 if found == (1, 1, True, True) else repr(found)
