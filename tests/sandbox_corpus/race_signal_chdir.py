# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# limits: cpu_seconds=2, wall_seconds=5
# TOCTOU through signals: a 20 µs timer's handler flips the cwd to "/" and back, between the hook's resolution
# of a relative path and the open() itself. A failed try must leave a trace (or fail in the kernel).
import os
import signal
import time


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    home = os.getcwd()
    os.makedirs("etc", exist_ok=True)
    with open("etc/passwd", "w") as fh:
        fh.write("decoy")
    state = {"flip": False}

    def handler(signum, frame):
        try:
            state["flip"] = not state["flip"]
            os.chdir("/" if state["flip"] else home)
        except Exception:
            pass

    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 0.00002, 0.00005)
    deadline = time.monotonic() + 1.5
    try:
        while time.monotonic() < deadline:
            try:
                with open("etc/passwd") as fh:
                    text = fh.read()
                if text != "decoy":
                    return leak(text)
            except Exception:
                pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    return 1
