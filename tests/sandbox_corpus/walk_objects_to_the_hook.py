# expect: forbidden
# expect-kernel: ok
import gc


def check(**p):
    return len(gc.get_objects())
