# expect: ok
# needs: timens
# value: 1
# ruff: noqa: SIM105, SIM115
# The uptime through the clocks every timer reads: time.monotonic(), time.perf_counter() and their _ns forms count
# from the machine's boot (CLOCK_MONOTONIC, in the vDSO). None may read more than a minute in a run.
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {"monotonic": time.monotonic(), "perf_counter": time.perf_counter(),
            "monotonic_ns": time.monotonic_ns() / 1e9, "perf_counter_ns": time.perf_counter_ns() / 1e9,
            "CLOCK_MONOTONIC": time.clock_gettime(time.CLOCK_MONOTONIC)}
    up = {name: value for name, value in seen.items() if value > 60}
    return leak(f"the machine's uptime: {up}") if up else 1
