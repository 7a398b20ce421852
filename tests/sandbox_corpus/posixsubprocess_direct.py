# expect: forbidden
# expect-kernel: ok
import _posixsubprocess


def check(**p):
    return str(_posixsubprocess)
