# expect: ok
# needs: timens
# value: 1
# ruff: noqa: SIM105, SIM115
# The machine's uptime through CLOCK_BOOTTIME (time.clock_gettime, no audit event, answered in user space by the
# vDSO: no syscall to refuse), by name and by number: a host fingerprint, and across runs how long it has been up.
# A run's clocks start near zero in its time namespace, so none may read more than a minute.
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    for name, clock in (("CLOCK_BOOTTIME", getattr(time, "CLOCK_BOOTTIME", 7)), ("7", 7)):
        try:
            seen[name] = time.clock_gettime(clock)
            seen[name + "_ns"] = time.clock_gettime_ns(clock) / 1e9
        except OSError:
            pass
    up = {name: value for name, value in seen.items() if value > 60}
    return leak(f"the machine's uptime: {up}") if up else 1
