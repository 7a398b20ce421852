# expect: ok
# value: 1
# needs: pids-cgroup
# A false positive, not an escape: `max_threads` (8) promises eight threads of the code's own at once, but glibc gave
# each thread that allocates an arena of its own (64 MiB of address space reserved, beside its 8 MiB stack) and the
# run's RLIMIT_AS (256 MiB) held five or six: the next start raised RuntimeError, or its thread's first allocation
# failed inside the interpreter's thread start (a MemoryError in the audit hook, unreported) and `Thread.start()`
# waited for it to the wall clock (`timeout`; measured on main: 6 of 8 here, a hang under a host without root). One
# malloc arena for every thread now: a thread costs its stack. Eight workers meet at a barrier, each building rows.
import threading


def check(**p):
    barrier = threading.Barrier(9, timeout=2)
    sizes = [0] * 8

    def work(i):
        rows = [{"id": n, "name": f"row{n}", "tags": [str(n)] * 4} for n in range(3000)]
        barrier.wait()
        sizes[i] = len(rows)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    barrier.wait()
    for thread in threads:
        thread.join()
    return 1 if sizes == [3000] * 8 else repr(sizes)
