# expect: exception
# expect-kernel: exception
# error: x\udc80y
# An error report forged on the result channel whose message is not Unicode: the host hands the caller the
# message with the surrogate escaped (backslashreplace), so logs and datasets can always write it.
import os


def check(**p):
    os.write(3, b'{"error_kind":"exception","error":"x\\udc80y"}\n')
    os._exit(0)
