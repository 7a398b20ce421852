# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `bytearray`'s searches (`find`, `count`, `index`, `rfind`, `rindex`, `startswith`, `endswith`, `in`), its `hex` and
# its `%` formatting, and a memoryview's `hex`, take the data pointer and size first, then ask the arguments for their
# numbers and lengths (a bound's or needle's `__index__`, a separator's `__len__`, a formatted value's `__index__`:
# Python code of the code's own), then read from that pointer (CPython 3.11; gh-142558 to gh-142560 for the searches,
# never fixed in 3.11). Each argument here empties the bytearray: its 57-byte block is freed, the allocator writes its
# free-list link over the first 8 bytes, and C reads that block (a pointer where 8 bytes of "a" were: another count,
# index, prefix, hex text; with a buffer of 1 MiB, an unmapped page: SIGSEGV). With the hook each answers from a copy
# taken before the argument's code ran (1); without it native code is assumed anyway.
import os

SIZE = 56


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


def freeing(data, number, view=None):
    """An argument whose number (or length) empties `data` (releasing `view` first) before it answers."""

    class Freer(str):
        def __index__(self):
            data.clear()
            return number

        def __len__(self):
            if view is not None:
                view.release()
            data.clear()
            return 1

    return Freer(":")


def route(which):
    data = bytearray(b"a" * SIZE)
    if which == 0:
        return data.count(b"a", freeing(data, 0)) == SIZE
    if which == 1:
        return data.find(b"a" * 8, freeing(data, 0)) == 0
    if which == 2:
        return data.index(b"a" * 8, freeing(data, 0)) == 0
    if which == 3:
        return data.rfind(b"a" * SIZE, 0, freeing(data, SIZE)) == 0
    if which == 4:
        return data.rindex(b"a" * SIZE, freeing(data, 0)) == 0
    if which == 5:
        return data.startswith(b"a" * 8, freeing(data, 0))
    if which == 6:
        return data.endswith(b"a" * SIZE, freeing(data, 0))
    if which == 7:
        return freeing(data, 0x61) in data
    if which == 8:
        return data.hex(freeing(data, 0)) == ":".join(["61"] * SIZE)
    if which == 9:
        view = memoryview(data)
        return view.hex(freeing(data, 0, view), 8) == ":".join(["61" * 8] * (SIZE // 8))
    data[:2] = b"%c"
    return data % (freeing(data, 0x62),) == b"b" + b"a" * (SIZE - 2)


def check(**p):
    if not hooked():  # native code is assumed anyway
        return 1
    answers = []
    for which in range(11):
        try:
            answers.append(route(which))
        except Exception as exc:
            answers.append(type(exc).__name__)
    if all(answer is True for answer in answers):
        return 1
    return "SANDBOX-ESCAPED a bytearray read where its arguments freed it: " + repr(answers)
