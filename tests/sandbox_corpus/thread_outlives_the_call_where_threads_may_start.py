# expect: ok
# value: 3
# needs: pids-cgroup
# Threads of the code's own (sandbox41: up to `max_threads` start) that outlive the call and forge its result after it
# returns: a daemon thread, a timer and a bare `_thread` thread, each writing a result frame on the channel 0.2 s
# later. The bootstrap writes the real result and ends the process at once (`_exit`: no thread is waited for), so
# none of them writes: the call answers 3 (the threads started), never "late".
import _thread
import os
import threading
import time


def late():
    time.sleep(0.2)
    os.write(3, b'\n{"result": "SANDBOX-ESCAPED late"}\n')


def check(**p):
    started = 0
    for start in (lambda: threading.Thread(target=late, daemon=True).start(),
                  lambda: threading.Timer(0.1, late).start(),
                  lambda: _thread.start_new_thread(late, ())):
        try:
            start()
            started += 1
        except RuntimeError:
            pass
    return started
