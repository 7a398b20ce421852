# expect: forbidden
# expect-kernel: ok
# value: 1
# With the hook off ctypes is usable: prctl calls that take back a process attribute the bootstrap set, with no
# capability needed. Clearing the parent-death signal lets the run outlive a host killed mid-call (its wall clock
# goes with the host, and the run then sleeps on for good, its memory held); making itself dumpable again re-arms
# core dumps, which a core_pattern piping to a helper (apport, systemd-coredump) runs as root in the host's
# namespaces whatever RLIMIT_CORE says. Each must fail, and the parent-death signal must still be SIGKILL.
import ctypes

PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_SET_DUMPABLE = 1, 2, 3, 4


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    ulong = ctypes.c_ulong
    attempts = {
        "cleared the parent-death signal": (PR_SET_PDEATHSIG, 0),
        "moved the parent-death signal to an ignorable one": (PR_SET_PDEATHSIG, 10),
        "made itself dumpable": (PR_SET_DUMPABLE, 1),
    }
    for name, (option, value) in attempts.items():
        if libc.prctl(ulong(option), ulong(value), ulong(0), ulong(0), ulong(0)) == 0:
            return f"SANDBOX-ESCAPED {name}"
    signal = ctypes.c_int(-1)
    if libc.prctl(ulong(PR_GET_PDEATHSIG), ctypes.byref(signal), ulong(0), ulong(0), ulong(0)) != 0:
        return "the parent-death signal cannot be read"
    if signal.value != 9:
        return f"SANDBOX-ESCAPED the parent-death signal is {signal.value}"
    return 1
