# expect: ok
# ruff: noqa: SIM105
# expect-kernel: ok
# value: 1
# limits: wall_seconds=10
# Threads beyond the run's `max_threads` (8), once threads may start (sandbox41): smallest stacks, through `threading`
# and `_thread` directly, then from the started threads themselves. In the full set the pids cgroup stops them at 8
# beside the main thread; where nothing counts the run's tasks (the degraded, kernel-only and no-Landlock sets: the
# child keeps root, which RLIMIT_NPROC never binds, and has no pids cgroup; Python 3.11 audits no thread start) none
# starts: seccomp refuses the clone, as before. Escaped if more than 8 ever run beside the main thread.
import _thread
import threading
import time


def check(**p):
    threading.stack_size(32768)
    release = threading.Event()
    started = 0
    try:
        while started < 4096:
            if started % 2:
                threading.Thread(target=release.wait, args=(30,), daemon=True).start()
            else:
                _thread.start_new_thread(release.wait, (30,))
            started += 1
    except RuntimeError:
        pass
    more = []

    def spawner():
        try:
            while len(more) < 4096:
                _thread.start_new_thread(release.wait, (30,))
                more.append(1)
        except RuntimeError:
            pass

    if started:  # one of the started threads ends, another starts threads: it finds the run full
        release.set()
        time.sleep(0.2)
        release.clear()
        try:
            _thread.start_new_thread(spawner, ())
        except RuntimeError:
            pass
        time.sleep(0.3)
    most = max(started, threading.active_count() - 1)
    release.set()
    if most > 8 or len(more) > 8:
        return f"SANDBOX-ESCAPED {started} threads beside the main one, {len(more)} more from a thread"
    return 1
