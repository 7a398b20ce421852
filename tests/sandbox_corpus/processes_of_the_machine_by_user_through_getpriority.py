# expect: ok
# expect-kernel: ok
# value: 1
# Every process of a user, asked by user instead of pid: getpriority(PRIO_USER, 0) answers the highest priority among
# all processes of the child's uid, which is root's where it keeps the host's (the degraded sets): -20 of the
# machine's root processes where the child had 10. PRIO_PGRP likewise asks a whole process group. Only the child
# itself (PRIO_PROCESS) may answer.
import os


def check(**p):
    try:
        own = os.getpriority(os.PRIO_PROCESS, 0)
    except OSError:  # not even its own (inherited_priority_of_the_host)
        own = None
    for which, name in ((os.PRIO_USER, "user"), (os.PRIO_PGRP, "group")):
        try:
            seen = os.getpriority(which, 0)
        except OSError:
            continue
        if seen != own:
            return f"SANDBOX-ESCAPED another process of the {name} has priority {seen} (mine {own})"
    return 1
