# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# A memoryview's item store by a tuple of indices (`view[(i,)] = v`) takes the view's data pointer, then asks each
# index for its number (`__index__`: Python code of the code's own), then packs the value where it pointed; for the
# format 'c' nothing asks after whether the view was released (CPython 3.11.7: gh-92888's fix checks the other formats
# once the value is converted). The index releases the view, empties its bytearray (the 57-byte block freed) and makes
# a list of 7 items, whose table takes that block: the byte lands on the low byte of the table's first item, which
# then names an address of the code's choosing (a forged object, as the earlier rounds' headers). With the hook the
# store converts its key first and writes through a view that stays exported, so the released view is refused and the
# list keeps its items (1); without it native code is assumed anyway.
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


def attempt():
    """One store whose index frees the view's buffer; the list whose table took the block."""
    data = bytearray(56)
    view = memoryview(data).cast("c")
    held = []

    class Key:
        def __index__(self):
            view.release()
            data.clear()  # the buffer's block freed
            held.append([None] * 7)  # a list's table of items takes it
            return 0

    with contextlib.suppress(ValueError):  # the released view refused
        view[(Key(),)] = b"\x01"
    return held[0]


def check(**p):
    if not hooked():  # native code is assumed anyway
        return 1
    for _ in range(8):
        items = attempt()
        if id(items[0]) != id(None):
            return f"SANDBOX-ESCAPED a memoryview store moved a list's item by {id(items[0]) - id(None)} bytes"
    return 1
