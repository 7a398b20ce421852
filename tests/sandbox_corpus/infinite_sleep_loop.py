# expect: timeout
# limits: wall_seconds=1.5
# kernel-independent
import time


def check(**p):
    while True:
        time.sleep(0.05)
