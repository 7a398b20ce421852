# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `hash()` of a read-only memoryview asks its exporter's own `__hash__` first (a bytearray subclass of the code's own
# may define one), then hashes the memory from the pointer and size it had before (CPython gh-142664): a `__hash__`
# that releases the view and empties the bytearray has C hash freed memory, a hash that tells what took the freed
# block; a buffer of 1 MiB is unmapped when freed, and the read is SIGSEGV. With the hook the buffer stays exported
# while the exporter's `__hash__` runs (its emptying refused) and what is hashed is a copy (1); without it native code
# is assumed anyway.
import contextlib
import os


def hooked():
    """Whether the audit hook runs (it refuses a hard link in the scratch)."""
    with open("a", "w"):
        pass
    try:
        os.link("a", "b")
    except OSError as exc:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_name == "hook":
                return True
            tb = tb.tb_next
    return False


class Freer(bytearray):
    def __hash__(self):
        VIEW[0].release()  # the view's export of the buffer ends
        with contextlib.suppress(BufferError):
            self.clear()  # 1 MiB of buffer unmapped: C hashes it next
        self.extend(b"?")
        return 1


VIEW = []


def check(**p):
    if not hooked():  # native code is assumed anyway
        return 1
    VIEW.append(memoryview(Freer(1 << 20)).toreadonly())
    try:
        hash(VIEW[0])
    except (ValueError, BufferError):
        return 1
    return "SANDBOX-ESCAPED a memoryview hashed the buffer its exporter freed"
