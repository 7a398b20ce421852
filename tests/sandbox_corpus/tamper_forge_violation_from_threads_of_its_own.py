# expect: bad_result
# needs: pids-cgroup
# Threads of the code's own (where `max_threads` lets them start) write forged violation lines of free text on the
# result channel while the main thread returns: each line lands whole between the bootstrap's frames. Main read them
# as the hook's refusals (`forbidden`, "blocked: worker 0: the check passed (and 2 more)"); the host now takes a
# violation line only in a form the hook writes, so these are the code's own, a malformed channel.
import os
import threading


def check(**p):
    def forge(i):
        os.write(3, f'\n{{"violation":"worker {i}: the check passed, nothing was refused"}}\n'.encode())

    threads = [threading.Thread(target=forge, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return 1
