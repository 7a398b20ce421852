# expect: ok
# needs: timens
# value: 1
# ruff: noqa: SIM105, SIM115
# The monotonic clock's other faces, which a filter on one clock id would miss: CLOCK_MONOTONIC_RAW (4, the
# hardware count without NTP's slew), CLOCK_MONOTONIC_COARSE (6, the last tick), CLOCK_BOOTTIME_ALARM (9): each
# counts from boot. None may read more than a minute in a run.
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    for clock in (4, 6, 9, getattr(time, "CLOCK_MONOTONIC_RAW", 4)):
        try:
            seen[clock] = time.clock_gettime(clock)
        except OSError:
            pass
    up = {name: value for name, value in seen.items() if value > 60}
    return leak(f"the machine's uptime: {up}") if up else 1
