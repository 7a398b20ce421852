# expect: ok
# value: 1
# needs: pidns
# limits: max_processes=3
# A thread's id is a pid of the machine's too: threading.get_native_id() (gettid, no audit event) of a thread the
# code starts where max_processes allows threads tells the same counter as os.getpid(), one step later, and two
# threads started a moment apart tell how many tasks the machine started meanwhile (other runs' and the host's: a
# live gauge of their activity). In a pid namespace of the run's own the ids are 3, 4, ...: the run's own tasks only.
import os
import threading


def check(**p):
    ids = []
    for _ in range(2):
        worker = threading.Thread(target=lambda: ids.append(threading.get_native_id()))
        worker.start()
        worker.join()
    if ids != [3, 4] and not (len(ids) == 2 and max(ids) <= 4):
        return f"SANDBOX-ESCAPED thread ids from the machine's pid counter {ids} (own pid {os.getpid()})"
    return 1
