# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# A signal handler is handed the frame that was running: an interval timer fires while the code spins, and the
# handler climbs f_back from the frame it was given. The bootstrap's frames it reaches may hold nothing of the host's
# job beyond the call's code, entrypoint and payload.
import signal
import time

HOST_KEYS = ("cgroup", "host_pid", "limits", "disable", "require", "missing", "lib_dirs", "run_dir")
found = []


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def handler(signum, frame):
    while frame is not None:
        for name, value in frame.f_locals.items():
            if name in HOST_KEYS or (isinstance(value, dict) and any(key in value for key in HOST_KEYS)):
                found.append((frame.f_code.co_name, name))
        frame = frame.f_back


def check(**p):
    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 0.01)
    deadline = time.time() + 0.3  # the timer fires after 0.01 s; well under the 1 s CPU limit on an idle core
    while not found and time.time() < deadline:
        sum(range(1000))
    signal.setitimer(signal.ITIMER_REAL, 0)
    return leak(f"the bootstrap's host state: {found[:6]}") if found else 1
