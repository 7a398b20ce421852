# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# PathLike objects whose __fspath__ answers a scratch path to whoever asks first and the secret afterwards,
# or returns a lying str subclass.
import os


class Flip:
    def __init__(self, first, then):
        self.calls, self.first, self.then = 0, first, then

    def __fspath__(self):
        self.calls += 1
        return self.first if self.calls % 2 else self.then


class Sub(str):
    def __str__(self):
        return "ok.txt"


class Wrapped:
    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return Sub(self.path)


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    with open("ok.txt", "w") as fh:
        fh.write("fine")
    for _ in range(4):
        for path in (Flip("ok.txt", p["secret_file"]), Flip(p["secret_file"], "ok.txt"), Wrapped(p["secret_file"])):
            try:
                text = open(path).read()
                if text != "fine":
                    return leak(text)
            except Exception:
                pass
            try:
                text = os.read(os.open(path, os.O_RDONLY), 200).decode()
                if text != "fine":
                    return leak(text)
            except Exception:
                pass
    try:
        os.rename("ok.txt", Flip(p["repo_target"], p["repo_target"]))
        return leak("moved a file into the repository")
    except Exception:
        pass
    return 1
