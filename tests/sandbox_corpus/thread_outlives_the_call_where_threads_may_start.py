# expect: ok
# value: 3
# needs: pids-cgroup
# Threads of the code's own (sandbox41: up to `max_threads` start) that outlive the call and forge its result after it
# returns: three non-daemon threads, each waiting until the call has returned (its frame gone) and then writing forged
# result frames on the channel in a loop, one of them a `Timer`. The bootstrap writes the real result and ends the
# process at once (`_exit`: no thread is waited for, daemon or not), so none of them writes: the call answers 3 (the
# threads started), never the forged value. (`thread_outlives_the_call` pins the same where no thread may start.)
import os
import sys
import threading
import time

FORGED = b'\n{"result": "SANDBOX-ESCAPED forged after the call"}\n'


def forge(caller):
    while caller.f_back is not None and time.monotonic() < caller.f_globals["DEADLINE"]:
        time.sleep(0.001)  # the call is still on the stack
    for _ in range(50):
        os.write(3, FORGED)
        time.sleep(0.002)


def check(**p):
    global DEADLINE
    DEADLINE = time.monotonic() + 2
    frame = sys._getframe()
    forgers = [threading.Thread(target=forge, args=(frame,)), threading.Thread(target=forge, args=(frame,)),
               threading.Timer(0.01, forge, args=(frame,))]
    for forger in forgers:
        forger.start()
    return len(forgers)
