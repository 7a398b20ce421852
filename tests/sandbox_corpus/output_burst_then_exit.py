# expect: output_limit
# A burst that is still in the pipe when the child exits counts too.
import os


def check(**p):
    os.write(1, b"x" * 60_000)
    os.write(2, b"y" * 60_000)
    return 1.0
