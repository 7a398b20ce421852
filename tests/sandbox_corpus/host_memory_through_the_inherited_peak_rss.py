# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The host's memory size, through the accounting exec carries over: the kernel folds the spawning process's peak
# resident set into the new program's ru_maxrss (resource.getrusage, no audit event), so a run's first reading is
# the host's peak (a training process's or a pipeline's gigabytes; how it grows from run to run), in all four sets.
# The host's own peak comes in `p`; no reading may come near it (a run holds a fraction of the host's).
import resource


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(host_peak_rss_kib=0, **p):
    seen = {}
    for name in ("RUSAGE_SELF", "RUSAGE_THREAD"):
        try:
            seen[name] = resource.getrusage(getattr(resource, name)).ru_maxrss
        except (OSError, AttributeError):
            pass
    over = {name: kib for name, kib in seen.items() if host_peak_rss_kib and kib >= int(host_peak_rss_kib) * 9 // 10}
    return leak(f"the host's peak RSS in KiB: {over} (host {host_peak_rss_kib})") if over else 1
