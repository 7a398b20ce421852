# expect: forbidden
# expect-kernel: ok
import ctypes


def check(**p):
    ctypes.CDLL(None).system(("touch " + p["tmp_target"]).encode())
    return 1.0
