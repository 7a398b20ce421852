# expect: ok
# expect-kernel: ok
# value: 0
# limits: max_threads=0
# A thread that outlives the call and forges the result after it returns; a daemon timer; _thread directly. With
# max_threads=0 none may start, whatever the uid (RLIMIT_NPROC never binds root: seccomp refuses the clone); with the
# default they start and the process ends with the call: `thread_outlives_the_call_where_threads_may_start`.
import _thread
import os
import threading
import time


def late():
    time.sleep(0.2)
    os.write(3, b'\n{"result": "late"}\n')


def check(**p):
    started = 0
    for start in (lambda: threading.Thread(target=late, daemon=True).start(),
                  lambda: threading.Timer(0.1, late).start(),
                  lambda: _thread.start_new_thread(late, ())):
        try:
            start()
            started += 1
        except Exception:
            pass
    return started
