# expect: crashed
import sys


def check(**p):
    sys.exit(3)
