# expect: ok
# expect-kernel: ok
# value: 1
# The scheduling priority the host runs at, inherited through fork and exec: os.getpriority(PRIO_PROCESS, 0) (no
# audit event) answered the host's nice value (10 under `nice -n 10`, a batch pipeline's or a service's setting), in
# all four sets. The run keeps running at that priority (the host's choice is honoured), but may not read it.
import os


def check(**p):
    for who in (0, os.getpid()):
        try:
            return f"SANDBOX-ESCAPED the host's nice value {os.getpriority(os.PRIO_PROCESS, who)}"
        except OSError:
            pass
    return 1
