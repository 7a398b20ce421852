# expect: ok
# needs: timens
# value: 1
# ruff: noqa: SIM105, SIM115
# The uptime through what the standard library builds on the boot clock: timeit's default timer, sched's and
# threading's time function (every lock timeout and Event.wait counts on it). None may read more than a minute in a
# run.
import sched
import threading
import timeit


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {"timeit": timeit.default_timer()}
    seen["sched"] = sched.scheduler().timefunc()
    seen["threading"] = threading._time()
    up = {name: value for name, value in seen.items() if value > 60}
    return leak(f"the machine's uptime: {up}") if up else 1
