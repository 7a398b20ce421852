# expect: ok
# value: 1
# needs: pids-cgroup
# A false positive, not an escape: a grader that starts threads itself and joins them (a worker per test case, a
# watchdog `threading.Timer`, a producer and a consumer over a `queue.Queue`, a thread waiting on an `Event`, a pool
# wider than the run allows) raised RuntimeError ("can't start new thread") in every set: `max_processes` 1 let no task
# beside the main thread start. Threads now start up to the run's `max_threads` (8) at once, where the kernel counts
# the run's tasks: its pids cgroup (this snippet's set), or RLIMIT_NPROC for any uid but root; a pool asking for more
# workers works with those it got. A child that keeps root without a pids cgroup (the degraded sets here) has nothing
# to count them and starts none, as before (2: `stdlib_thread_pool_executor_where_no_thread_may_start` covers it).
import concurrent.futures
import queue
import threading


def check(**p):
    try:
        probe = threading.Thread(target=int)
        probe.start()
    except RuntimeError:
        return 2
    probe.join(5)
    squares = []
    lock = threading.Lock()

    def work(n):
        with lock:
            squares.append(n * n)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(5)
    fired = threading.Event()
    timer = threading.Timer(0.01, fired.set)
    timer.start()
    timer.join(5)
    items, seen = queue.Queue(), []

    def producer():
        for i in range(5):
            items.put(i)
        items.put(None)

    def consumer():
        while (item := items.get(timeout=5)) is not None:
            seen.append(item)

    pair = [threading.Thread(target=producer), threading.Thread(target=consumer)]
    for thread in pair:
        thread.start()
    for thread in pair:
        thread.join(5)
    local, names = threading.local(), []

    def named():
        local.name = threading.current_thread().name
        names.append(local.name)

    one = threading.Thread(target=named, name="grader-1")
    one.start()
    one.join(5)
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:  # wider than the run's 8 threads
        mapped = sorted(pool.map(lambda x: x + 1, range(40)))
    found = [sorted(squares), fired.is_set(), seen, names, mapped == list(range(1, 41)), threading.active_count()]
    expected = [[0, 1, 4, 9, 16, 25], True, [0, 1, 2, 3, 4], ["grader-1"], True, 1]
    return 1 if found == expected else repr(found)
