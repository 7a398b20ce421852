# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Reach the host process through its resource limits: prlimit on the parent (same uid where there is no uid drop)
# could cut its CPU, memory or descriptors. The attempt re-sets the current values, so a success harms nothing
# but proves the reach.
import resource


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    parent = int(p["host_process"])
    for which in (resource.RLIMIT_MSGQUEUE, resource.RLIMIT_NOFILE, resource.RLIMIT_CPU):
        try:
            current = resource.prlimit(parent, which)
            resource.prlimit(parent, which, current)
        except Exception:
            continue
        return leak(f"set resource limit {which} of the host process {parent}")
    return 1
