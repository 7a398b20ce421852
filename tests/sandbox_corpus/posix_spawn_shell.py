# expect: forbidden
# expect-kernel: exception
import os


def check(**p):
    os.posix_spawn("/bin/sh", ["sh", "-c", "touch " + p["tmp_target"]], {})
    return 1.0
