# expect: forbidden
# expect-kernel: exception
import os


def check(**p):
    with open(f"/proc/{p['host_pid']}/environ", "rb") as fh:
        return fh.read().decode(errors="replace")
