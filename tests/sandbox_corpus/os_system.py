# expect: forbidden
import os


def check(**p):
    return os.system("touch " + p["tmp_target"])
