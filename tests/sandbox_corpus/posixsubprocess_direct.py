# expect: forbidden
import _posixsubprocess


def check(**p):
    return str(_posixsubprocess)
