# expect: forbidden
import gc


def check(**p):
    return len(gc.get_objects())
