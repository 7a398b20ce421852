# expect: ok
# expect-kernel: ok
# value: 1
# limits: max_threads=0
# A false positive, not an escape: a grader maps a check over items with `ThreadPoolExecutor` (or bounds a call with
# `future.result(timeout=...)`, or awaits `asyncio.to_thread`), and no thread may start in a run (`max_processes` is 1):
# `submit` raised RuntimeError ("can't start new thread") in every set. Where no worker could start, the executor now
# runs each call in the submitting thread, its future done (result or exception) when `submit` returns; asyncio.run
# shuts its default executor down without a thread. A thread of the code's own cannot start here (`max_threads=0`; with
# the default the code's threads start: `stdlib_threads_started_and_joined_by_the_code`).
def check(**p):
    import asyncio
    import concurrent.futures as cf
    import threading

    with cf.ThreadPoolExecutor(max_workers=4) as pool:
        squares = list(pool.map(lambda x: x * x, range(5)))
        failing = pool.submit(lambda: 1 / 0)
        bounded = pool.submit(sum, [1, 2]).result(timeout=2)
        done, _ = cf.wait([failing], timeout=2)
        nested = pool.submit(lambda: pool.submit(int, "7").result() + 1).result()
    try:
        pool.submit(int)
        after = "submitted"
    except RuntimeError:
        after = "RuntimeError"

    async def main():
        loop = asyncio.get_running_loop()
        return await asyncio.gather(asyncio.to_thread(max, 3, 4), loop.run_in_executor(None, min, 3, 4))

    awaited = asyncio.run(main())
    try:
        threading.Thread(target=int).start()
        own = "started"
    except RuntimeError:
        own = "RuntimeError"
    found = [squares, type(failing.exception()).__name__, bounded, len(done), nested, after, awaited, own,
             threading.active_count()]
    expected = [[0, 1, 4, 9, 16], "ZeroDivisionError", 3, 1, 8, "RuntimeError", [4, 3], "RuntimeError", 1]
    return 1 if found == expected else repr(found)
