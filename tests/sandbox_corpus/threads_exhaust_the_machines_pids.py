# expect: ok
# value: 7
# limits: max_processes=8,max_threads=0,wall_seconds=10
# needs: pids-cgroup
# Threads until none starts, with the smallest stacks: each one a pid of the machine's (pid_max is 32768 here). With
# max_processes above 1 seccomp lets threads through, and RLIMIT_NPROC never binds uid 0, which the child keeps
# without the per-run uid: 803 Python threads then (the address space stopped them), and native ones (the hook off)
# reached the 3000 a probe asked for. Must stop at max_processes tasks, the main thread included, whatever the uid:
# the run's pids cgroup.
import threading
import time


def check(**p):
    threading.stack_size(32768)
    started = 0
    try:
        while started < 4096:
            threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
            started += 1
    except RuntimeError:  # can't start new thread
        pass
    return started if started < 8 else f"SANDBOX-ESCAPED {started} threads beside the main one"
