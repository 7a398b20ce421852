# expect: ok
# value: 0
# expect-kernel: ok
# The host's scratch watch (every 0.1 s, where no tmpfs caps the scratch) lists each folder of the scratch, and a
# listing updates the folder's access time (`relatime`: whenever it is not later than the last change), which the
# code reads back with `os.stat` (no audit event): each look the host takes shows, to within the time of one loop, so
# a run can write its bursts between two looks and remove them before the next (a scratch without tmpfs is capped
# by those looks alone: hundreds of MiB beyond the cap, unseen). The host lists without touching access times
# (`O_NOATIME`): no look shows. The full set's tmpfs scratch is never looked at.
import os
import time


def check(**p):
    os.mkdir("watched")
    seen, last, end = 0, None, time.monotonic() + 0.4
    while time.monotonic() < end:
        # A change makes the folder's access time not later than its change time, so the next listing moves it.
        with open("watched/f", "w"):
            pass
        os.unlink("watched/f")
        last = os.stat("watched").st_atime_ns
        time.sleep(0.02)
        if os.stat("watched").st_atime_ns != last:
            seen += 1
    if seen:
        return f"SANDBOX-ESCAPED the host's scratch watch seen looking {seen} times in 0.4 s (access times)"
    return seen
