# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# `collections.Counter` counts through `_collections._count_elements` (CPython 3.11), which adds one to the count it
# finds in the dict (`PyNumber_Add(oldval, one)`) by a borrowed reference. A count of the code's own (an int subclass)
# has its `__add__` asked first: it clears the counter, drops its own frame's reference (`del self`: the count is freed
# there) and makes a bytearray whose buffer takes the freed block, forged as an int, and answers NotImplemented; C then
# asks `int.__add__` with the freed block as the count, and the counter stores a number read from the code's forged
# bytes (12346 here: a digit count of the code's choosing reads the heap past the block, or faults). Two routes:
# `Counter.update`, and the helper called on a plain dict. Each answers 1 where the count stayed alive (the sum is then
# 6); a count read from the freed block raises (without the hook native code is assumed anyway: the error, or a crash).
import _collections
import collections
import struct


def route(kind):
    held = []
    # the count's block (48 bytes): the collector's header, then refcount, type, digit count and one digit
    forged = bytes(16) + struct.pack("<QQqI", 1 << 40, id(int), 1, 12345)
    forged = bytearray(forged + bytes(47 - len(forged)))  # a 47-byte bytearray's buffer is a 48-byte block
    counts = collections.Counter() if kind == "update" else {}

    class Count(int):
        __slots__ = ()

        def __add__(self, other):
            counts.clear()  # the dict's reference goes; this frame's is the last one
            del self  # freed here, while C still holds it
            held.append(forged.copy())  # its buffer takes the freed block (no tuple is made on the way)
            return NotImplemented

    counts["k"] = Count(5)
    if kind == "update":
        counts.update(["k"])
    else:
        _collections._count_elements(counts, ["k"])
    total = counts.get("k")
    if type(total) is not int or total != 6:
        raise RuntimeError(f"the counter added one to a count its own code freed: {total!r}")
    return 1


def check(**p):
    return sum(route(kind) for kind in ("update", "helper"))
