# expect: forbidden
import os


def check(**p):
    while True:
        os.fork()
