# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Objects that lie about what they are: `__class__` properties claiming str/bytes, `__fspath__` provided by a
# descriptor whose __get__ hands out a different function each time, `__getattr__` catch-alls, and a str subclass
# whose metaclass overrides __instancecheck__/__subclasscheck__/__eq__/__hash__; passed to open, os.open,
# os.listdir, os.remove, os.rename and os.utime.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


class Alternating:
    def __init__(self, first, then):
        self.calls, self.first, self.then = 0, first, then

    def __get__(self, obj, owner=None):
        self.calls += 1
        path = self.first if self.calls % 2 else self.then
        return lambda: path


def spoof(first, then):
    class Spoof:
        __fspath__ = Alternating(first, then)

        @property
        def __class__(self):
            return str

        def __getattr__(self, name):
            return getattr(first, name)

    return Spoof()


class LyingMeta(type):
    def __instancecheck__(cls, obj):
        return True

    def __subclasscheck__(cls, sub):
        return True

    def __eq__(cls, other):
        return True

    def __hash__(cls):
        return hash(str)


class MetaStr(str, metaclass=LyingMeta):
    pass


def check(**p):
    with open("ok.txt", "w") as fh:
        fh.write("fine")
    secret, repo = p["secret_file"], p["repo_target"]
    attempts = [
        lambda: open(spoof("ok.txt", secret)).read(),
        lambda: open(spoof(secret, "ok.txt")).read(),
        lambda: os.read(os.open(spoof("ok.txt", secret), os.O_RDONLY), 200).decode(),
        lambda: open(MetaStr(secret)).read(),
        lambda: repr(os.listdir(MetaStr(os.path.dirname(secret)))),
        lambda: (os.rename("ok.txt", spoof(repo, repo)), "moved into the repository")[1],
        lambda: (os.utime(MetaStr(p["host_file"]), (0, 0)), os.stat(p["host_file"]).st_mtime == 0 and
                 "touched the host file")[1],
        lambda: (os.remove(MetaStr(p["host_file"])), "removed the host file")[1],
    ]
    for attempt in attempts:
        try:
            got = attempt()
            if got and got != "fine":
                return leak(got)
        except Exception:
            pass
    return 1
