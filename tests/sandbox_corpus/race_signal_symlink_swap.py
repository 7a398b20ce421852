# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# limits: cpu_seconds=2, wall_seconds=5
# TOCTOU through signals: the handler swaps a scratch entry between a plain file and a symlink to the host's
# secret (symlink + rename), while the main loop keeps opening that entry.
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
    with open("plain", "w") as fh:
        fh.write("decoy")
    state = {"n": 0}

    def handler(signum, frame):
        state["n"] += 1
        try:
            if state["n"] % 2:
                os.symlink(p["secret_file"], "tmp_link")
                os.replace("tmp_link", "entry")
            else:
                os.link("plain", "tmp_hard")
                os.replace("tmp_hard", "entry")
        except Exception:
            pass

    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 0.00002, 0.00005)
    deadline = time.monotonic() + 1.5
    try:
        while time.monotonic() < deadline:
            try:
                with open("entry") as fh:
                    text = fh.read()
                if text != "decoy":
                    return leak(text)
            except Exception:
                pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    return 1
