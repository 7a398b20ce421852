# expect: forbidden
# expect-kernel: exception
import os


def check(**p):
    with open(f"/proc/{os.getppid()}/environ", "rb") as fh:
        return fh.read().decode(errors="replace")
