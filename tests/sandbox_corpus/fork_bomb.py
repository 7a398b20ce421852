# expect: forbidden
# expect-kernel: exception
import os


def check(**p):
    while True:
        os.fork()
