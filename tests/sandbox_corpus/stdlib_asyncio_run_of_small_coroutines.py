# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `asyncio.run` of any coroutine (a grader awaiting an agent's async function,
# `gather`, `wait_for` with a timeout, a queue between two tasks) was `forbidden` in every set with the hook (asyncio
# imports subprocess for its constants, and `types.coroutine` at import makes a code object) and raised
# PermissionError with the kernel layers alone (the event loop's self-pipe is a socket pair, which seccomp refuses).
# Now subprocess imports (its Popen refused before any pipe), `types.coroutine`'s flag change passes the hook, and the
# loop has no self-pipe: it waits at most 0.1 s in its selector, so a callback a signal handler schedules still runs,
# and `add_signal_handler` raises RuntimeError. Alike in every set.
def check(**p):
    import asyncio
    import io
    import signal
    import unittest

    async def double(x):
        await asyncio.sleep(0)
        return 2 * x

    async def slow():
        await asyncio.sleep(5)

    async def main():
        gathered = await asyncio.gather(*(double(i) for i in range(4)))
        try:
            await asyncio.wait_for(slow(), 0.05)
            waited = "finished"
        except TimeoutError:
            waited = "timed out"
        queue, seen = asyncio.Queue(), []

        async def producer():
            for i in range(3):
                await queue.put(i)
            await queue.put(None)

        async def consumer():
            while (item := await queue.get()) is not None:
                seen.append(item)

        async with asyncio.TaskGroup() as group:
            group.create_task(producer())
            group.create_task(consumer())
        loop = asyncio.get_running_loop()
        woken = loop.create_future()
        signal.signal(signal.SIGALRM, lambda signum, frame: loop.call_soon_threadsafe(woken.set_result, "woken"))
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        return gathered, waited, seen, await asyncio.wait_for(woken, 3)

    found = list(asyncio.run(main()))
    loop = asyncio.new_event_loop()
    try:
        later = loop.create_future()
        loop.call_later(0.01, later.set_result, 7)
        found.append(loop.run_until_complete(later))
        try:
            loop.add_signal_handler(signal.SIGUSR1, lambda: None)
            found.append("handler added")
        except RuntimeError:
            found.append("RuntimeError")
    finally:
        loop.close()

    class Awaited(unittest.IsolatedAsyncioTestCase):
        async def test_double(self):
            self.assertEqual(await double(2), 4)

    run = unittest.TextTestRunner(stream=io.StringIO()).run(unittest.defaultTestLoader.loadTestsFromTestCase(Awaited))
    found.append((run.testsRun, len(run.errors), len(run.failures)))
    expected = [[0, 2, 4, 6], "timed out", [0, 1, 2], "woken", 7, "RuntimeError", (1, 0, 0)]
    return 1 if found == expected else repr(found)
