# expect: forbidden
# expect-kernel: ok
import os


def check(**p):
    return os.system("touch " + p["tmp_target"])
