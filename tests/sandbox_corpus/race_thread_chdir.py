# expect: forbidden|ok
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# limits: cpu_seconds=2, wall_seconds=5
# TOCTOU through a thread: one thread flips the cwd between the scratch directory and "/" while the main thread
# opens a relative path (threads may not start at all under the process limit: then nothing happens).
import os
import threading


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
    stop = threading.Event()

    def flipper():
        while not stop.is_set():
            for where in ("/", home):
                try:
                    os.chdir(where)
                except Exception:
                    pass

    try:
        threading.Thread(target=flipper, daemon=True).start()
    except Exception:
        return 1
    try:
        for _ in range(3000):
            try:
                with open("etc/passwd") as fh:
                    text = fh.read()
                if text != "decoy":
                    return leak(text)
            except Exception:
                pass
    finally:
        stop.set()
    return 1
