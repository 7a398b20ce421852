# expect: bad_result
# expect-kernel: bad_result
# C code writing the result channel: faulthandler dumping tracebacks onto fd 3, then enabled there for a crash.
import faulthandler


def check(**p):
    faulthandler.dump_traceback(file=3, all_threads=True)
    faulthandler.enable(file=3)
    return 1
