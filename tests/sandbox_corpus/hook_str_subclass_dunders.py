# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# str subclasses that answer differently to the hook than to the kernel: __str__, __fspath__, __eq__, __hash__,
# __repr__, __format__, startswith/split/__add__ overrides, passed to open, os.open, os.listdir, os.remove, sqlite3.
import os
import sqlite3


def make(real, shown):
    class Lying(str):
        def __str__(self):
            return shown

        def __fspath__(self):
            return shown

        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

        def __hash__(self):
            return hash(shown)

        def __repr__(self):
            return repr(shown)

        def __format__(self, spec):
            return shown

        def startswith(self, *a):
            return True

        def split(self, *a, **k):
            return shown.split(*a, **k)

        def __add__(self, other):
            return Lying(real + other)

        def __radd__(self, other):
            return Lying(other + real)

    return Lying(real)


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    scratch_name = os.path.join(os.getcwd(), "ok.txt")
    secret = make(p["secret_file"], scratch_name)
    attempts = [
        lambda: open(secret).read(),
        lambda: os.read(os.open(secret, os.O_RDONLY), 200).decode(),
        lambda: open(make(p["world_file"], "ok.txt")).read(),
        lambda: repr(os.listdir(make(os.path.dirname(p["secret_file"]), "."))),
        lambda: (os.remove(make(p["host_file"], scratch_name)), "removed the host file")[1],
        lambda: (open(make(p["repo_target"], scratch_name), "w").close(), "wrote into the repository")[1],
        lambda: (sqlite3.connect(make(p["tmp_target"], ":memory:")).execute("create table t(x)"), "db")[1],
    ]
    for attempt in attempts:
        try:
            return leak(attempt())
        except Exception:
            pass
    return 1
