# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105
# Thousands of refused operations, each a violation line on the channel: more than the channel's cap. The refusal
# must still read as forbidden, never as a clean result or a host failure.
import os


def check(**p):
    for i in range(20000):
        try:
            os.listdir("/" + "x" * (i % 200))
        except Exception:
            pass
    return 1
