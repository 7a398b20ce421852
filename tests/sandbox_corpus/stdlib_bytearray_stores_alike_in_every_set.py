# expect: ok
# expect-kernel: ok
# value: 22
# Honest twin of `memory_bytearray_item_converted_after_its_buffer_freed`: what a check does with a bytearray's item
# and slice stores and deletions answers alike in every set, where `bytearray.__setitem__` and `__delitem__` are sealed
# and where they are C's. Items by index (negative, `__index__`, bool, an `__index__` value), slices of step 1 that
# grow, shrink, insert and cut the head off (a parser's buffer), extended and reversed slices from bytes, lists,
# generators, `range` and memoryviews, a bytearray stored into itself, extended slices emptied, a subclass with a
# `__setitem__` of its own (and `super()`), `operator.setitem`, `bytearray.__setitem__` called as a descriptor, a
# store while a memoryview is held, a big buffer edited, and the errors an honest mistake gets (exception and message).
import operator
import struct


class Place:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class Upper(bytearray):
    def __setitem__(self, key, value):
        super().__setitem__(key, value.upper() if isinstance(key, slice) else value)


def error(store):
    try:
        store()
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return None


def check(**p):
    results = []

    def same(got, want):
        results.append(got == want)

    a = bytearray(b"abcdef")
    a[0], a[-1], a[Place(1)], a[True] = 65, 70, 66, Place(98)
    same(a, b"AbcdeF")
    a[2:4] = b"XYZW"
    a[1:1] = [49, 50]
    a[:2] = b""
    same(a, b"2bXYZWeF")
    del a[1], a[-1]
    same(a, b"2XYZWe")
    a[::2] = b"123"
    a[4:0:-2] = bytearray(b"98")
    same(a, b"1X8Z9e")
    b = bytearray(range(10))
    b[1::3] = (x + 100 for x in range(3))
    b[::-1] = range(10)
    same(b, bytes(range(9, -1, -1)))
    del b[::2]
    del b[5:1:-1]
    same(b, bytes([8, 6]))
    c = bytearray(b"hello")
    c[1:3] = c
    c[len(c):] = memoryview(b"!?")[:1]
    same(c, b"hhellolo!")
    c[::3] = b""
    same(c, b"heloo!")
    stream = bytearray(b"".join(struct.pack("<H", n) + b"x" * n for n in range(40)))
    frames = []
    while stream:  # a parser's buffer: each frame read, then cut off its head
        (size,) = struct.unpack_from("<H", stream)
        frames.append(bytes(stream[2:2 + size]))
        del stream[:2 + size]
    same((len(frames), frames[-1], stream), (40, b"x" * 39, b""))
    big = bytearray(100000)
    big[50000:50004] = b"abcd"
    big[10:20] = b"y" * 1000
    big[-3:] = b"zz"
    big[::1000] = bytes(range(101))
    same((len(big), big[0], big[1000], big[51000:51004], big[-2:]), (100989, 0, 1, b"3\0\0\0", b"zz"))
    u = Upper(b"abc")
    u[0:1] = b"q"
    u[1] = 120
    same(u, b"Qxc")
    d = bytearray(4)
    operator.setitem(d, 1, 7)
    operator.setitem(d, slice(2, None), iter([8, 9]))
    bytearray.__setitem__(d, 0, 6)
    bytearray.__setitem__(d, slice(None, None, 3), (1, 2))
    operator.delitem(d, slice(1, 2))
    bytearray.__delitem__(d, 0)
    same(d, b"\x08\x02")
    e = bytearray(b"held")
    with memoryview(e) as view:
        e[0], e[1:3] = 72, b"EL"
        same((bytes(view), error(lambda: operator.setitem(e, slice(0, 1), b"xy"))),
             (b"HELd", ("BufferError", "Existing exports of data: object cannot be re-sized")))
    same(error(lambda: operator.setitem(bytearray(2), 2, 0)), ("IndexError", "bytearray index out of range"))
    same(error(lambda: operator.setitem(bytearray(2), 0, 256)), ("ValueError", "byte must be in range(0, 256)"))
    same(error(lambda: operator.setitem(bytearray(2), 0, "a")),
         ("TypeError", "'str' object cannot be interpreted as an integer"))
    same(error(lambda: operator.setitem(bytearray(2), "0", 0)),
         ("TypeError", "bytearray indices must be integers or slices, not str"))
    same(error(lambda: operator.setitem(bytearray(2), slice(0, 1), 5)),
         ("TypeError", "can assign only bytes, buffers, or iterables of ints in range(0, 256)"))
    same(error(lambda: operator.setitem(bytearray(4), slice(None, None, 2), b"abc")),
         ("ValueError", "attempt to assign bytes of size 3 to extended slice of size 2"))
    same(error(lambda: operator.setitem(bytearray(4), slice(None, None, 0), b"")),
         ("ValueError", "slice step cannot be zero"))
    same(error(lambda: operator.setitem(bytearray(4), slice(0, 2), [1, 300])),
         ("ValueError", "byte must be in range(0, 256)"))
    same(error(lambda: operator.delitem(bytearray(4), 4)), ("IndexError", "bytearray index out of range"))
    return sum(results) if all(results) else [i for i, ok in enumerate(results) if not ok]
