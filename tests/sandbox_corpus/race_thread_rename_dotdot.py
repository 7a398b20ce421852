# expect: forbidden|ok
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# limits: cpu_seconds=2, wall_seconds=5
# A thread renames scratch folders while the main thread opens paths climbing out with "..": the kernel must
# refuse what lands outside, whichever folder layout the race produced.
import os
import threading


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    os.makedirs("a/b/c/d/e/f/g/h", exist_ok=True)
    stop = threading.Event()

    def mover():
        while not stop.is_set():
            try:
                os.rename("a", "z")
                os.rename("z", "a")
            except Exception:
                pass

    try:
        threading.Thread(target=mover, daemon=True).start()
    except Exception:
        pass
    climb = "a/b/c/d/e/f/g/h/" + "../" * 20
    try:
        for _ in range(500):
            for target in ("etc/passwd", p["secret_file"].lstrip("/"), p["world_file"].lstrip("/")):
                try:
                    with open(climb + target) as fh:
                        return leak(fh.read())
                except Exception:
                    pass
    finally:
        stop.set()
    return 1
