# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Every way to a second process: os.fork, os.forkpty, posix_spawn(p), os.spawnv, os.popen, pty.fork, and fork
# through a freshly made posix module (whose functions no earlier patch touched).
import os
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def attempts():
    yield lambda: os.fork()
    yield lambda: os.forkpty()
    yield lambda: os.posix_spawn("/bin/sh", ["sh", "-c", "true"], {})
    yield lambda: os.posix_spawnp("sh", ["sh", "-c", "true"], {})
    yield lambda: os.spawnv(os.P_NOWAIT, "/bin/sh", ["sh"])
    yield lambda: os.popen("true").close()
    yield lambda: __import__("pty").fork()
    yield lambda: sys.modules["_imp"].create_builtin(
        sys.modules["_frozen_importlib"].ModuleSpec("posix", sys.modules["_frozen_importlib"].BuiltinImporter)).fork()


def check(**p):
    made = []
    for attempt in attempts():
        try:
            pid = attempt()
        except BaseException:
            continue
        if pid == 0:
            os._exit(0)
        made.append(pid)
    return leak(made) if [m for m in made if m] else 1
