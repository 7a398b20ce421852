# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# The C buffered reader calls its raw stream's `readinto` while the text wrapper above it holds it only by a borrowed
# reference: a `readinto` of the code's own that detaches the wrapper drops the reader's last reference, and C goes on
# reading and writing the freed reader (CPython gh-157363, open): the child died of SIGSEGV in every set on main, a
# use-after-free with the code choosing what takes the freed block. With the hook a raw stream of the code's own gets
# `_pyio`'s reader, which Python's own references keep alive: the read fails cleanly (1); without the hook native code
# is assumed anyway (the crash, or 1).
import contextlib
import io

HELD = []


class Detaching(io.RawIOBase):
    def readable(self):
        return True

    def readinto(self, view):
        wrapper.detach()
        HELD.extend(bytearray(b"f" * 64) for _ in range(64))  # whatever takes the freed reader's block
        view[:3] = b"abc"
        return 3


wrapper = None


def check(**p):
    global wrapper
    wrapper = io.TextIOWrapper(io.BufferedReader(Detaching()), encoding="utf-8")
    with contextlib.suppress(ValueError, RuntimeError):
        wrapper.read()
    return 1
