# expect: ok
# expect-kernel: ok
# value: 1
# limits: max_processes=2
# ruff: noqa: SIM105, SIM115
# A thread has a stack of its own (a fresh mapping, its own leftovers): os.times() and os.sysconf("SC_PHYS_PAGES") asked
# from one read whatever that stack held where the refused times(2) and sysinfo(2) left their buffers unwritten. The
# answers must be the main thread's, fixed.
import os
import threading


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}

    def ask():
        seen["thread"] = (tuple(os.times())[2:4], os.sysconf("SC_PHYS_PAGES"))

    worker = threading.Thread(target=ask)
    worker.start()
    worker.join()
    mine = (tuple(os.times())[2:4], os.sysconf("SC_PHYS_PAGES"))
    if seen.get("thread") != mine or mine[0] != (0.0, 0.0):
        return leak(f"a thread read {seen.get('thread')}, the main thread {mine}")
    return 1
