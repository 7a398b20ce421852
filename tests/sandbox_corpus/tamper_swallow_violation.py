# expect: forbidden
# expect-kernel: ok
# Catching the blocked operation's error does not hide it: the violation is reported when it happens.
import contextlib
import os


def check(**p):
    with contextlib.suppress(Exception):
        os.system("id")
    return 1.0
