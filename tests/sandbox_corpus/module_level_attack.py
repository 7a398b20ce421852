# expect: forbidden
# expect-kernel: ok
# Hostile code at import time, before the entrypoint is even looked up.
import os

os.system("id")


def check(**p):
    return 1.0
