# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# bytes subclasses (and bytearray/memoryview) with lying __bytes__, decode, __eq__, __hash__ and __index__.
import os


class LyingBytes(bytes):
    def __bytes__(self):
        return b"ok.txt"

    def decode(self, *a, **k):
        return "ok.txt"

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0

    def __index__(self):
        return 0


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    secret = p["secret_file"].encode()
    attempts = [
        lambda: open(LyingBytes(secret), "rb").read().decode(),
        lambda: os.read(os.open(LyingBytes(secret), os.O_RDONLY), 200).decode(),
        lambda: open(bytearray(secret), "rb").read().decode(),
        lambda: open(memoryview(secret), "rb").read().decode(),
        lambda: (os.mkdir(LyingBytes(p["repo_target"].encode())), "made a folder in the repository")[1],
        lambda: open(LyingBytes(b"/etc/passwd"), "rb").read().decode(errors="replace"),
    ]
    for attempt in attempts:
        try:
            got = attempt()  # __index__ makes open() read fd 0 (/dev/null): empty, not an escape
            if got:
                return leak(got)
        except Exception:
            pass
    return 1
