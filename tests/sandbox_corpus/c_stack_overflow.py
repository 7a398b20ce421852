# expect: crashed|timeout|cpu_limit
# Lifting the recursion limit lets C-level recursion (comparing deeply nested lists) overflow the stack.
import gc
import sys


def check(**p):
    gc.disable()
    sys.setrecursionlimit(10**8)
    left: list = []
    right: list = []
    for _ in range(300_000):
        left, right = [left], [right]
    return left == right
