# expect: ok
# expect-kernel: ok
# value: 1
# Which processes run on the machine, asked of the CPU clocks by pid: clock_getres of ~pid << 3 | kind answers 1 ns for
# a pid with a process and EINVAL for a free one (53 of 3000 pids answered here, in every layer set). Every pid but
# the child's own must be refused alike.
import os
import time


def check(**p):
    own = os.getpid()
    errors, answered = set(), []
    for pid in (int(p["host_process"]), 1, *range(2, 4000)):
        if pid == own:
            continue
        try:
            time.clock_getres((~pid << 3) | 2)
            answered.append(pid)
        except OSError as exc:
            errors.add(exc.errno)
    if answered:
        return f"SANDBOX-ESCAPED {len(answered)} pids answered, {answered[:5]}..."
    if len(errors) > 1:
        return f"SANDBOX-ESCAPED errnos told pids apart: {sorted(errors)}"
    return 1
