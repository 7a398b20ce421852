# expect: ok
# expect-kernel: ok
# value: 17
# Honest twin of `memory_array_item_converted_after_its_resize`: what a check does with `array.array` answers alike in
# every set, the sealed one included: items set by index and by slice (growing, shrinking, extended, from itself),
# `append`, `insert` at either end and past them, `extend` from lists, generators, bytes and arrays, `fromlist`,
# every typecode, values of the code's own with `__index__` and `__float__`, the errors an honest mistake gets (the
# same exception and message), a subclass of its own, `operator.setitem`, `del`, a memoryview held over the array
# while items are set in place, pickling, `struct.pack_into` over it, `tofile` and `fromfile`.
import operator
import pickle
import struct
from array import array


class Three:
    def __index__(self):
        return 3

    def __float__(self):
        return 3.0


class Tagged(array):
    def total(self):
        return sum(self)


def error(call):
    try:
        call()
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return None


def check(**p):
    results = []
    a = array("q", range(10))
    a[3], a[-1] = 99, Three()
    a.append(5), a.insert(0, -1), a.insert(-100, -2), a.insert(100, 100)
    a.extend([1, 2]), a.extend(x for x in (7, 8)), a.extend(array("q", [3])), a.fromlist([4, Three()])
    results.append(a.tolist() == [-2, -1, 0, 1, 2, 99, 4, 5, 6, 7, 8, 3, 5, 100, 1, 2, 7, 8, 3, 4, 3])
    a[1:3] = array("q", [8, 8, 8])
    a[::2] = array("q", [0] * len(a[::2]))
    a[1:1] = a
    del a[::3]
    results.append(len(a) == 29 and a[:6].tolist() == [0, 8, 8, 0, 0, 4])
    b = array("B")
    b.extend(b"ab"), b.fromlist([3]), b.append(Three())
    results.append(b.tobytes() == b"ab\x03\x03")
    f = array("d", [1.5])
    f[0], f[-1] = 2.25, Three()
    f.append(Three()), f.insert(0, 0.5)
    results.append(f.tolist() == [0.5, 3.0, 3.0])
    u = array("u", "abc")
    u[1] = "z"
    u.append("q"), u.insert(1, "w")
    results.append(u.tounicode() == "awzcq")
    for code in "bBhHiIlLqQfd":
        c = array(code, [1, 2, 3])
        c[0], c[1:2] = 4, array(code, [5, 6])
        c.append(7)
        if c.tolist() != [4, 5, 6, 3, 7]:
            break
    else:
        results.append(True)
    results.append([error(call) for call in (
        lambda: a.__setitem__(1000, 1), lambda: a.__setitem__(0, "x"), lambda: array("b").append(300),
        lambda: a.fromlist((1,)), lambda: a.extend(array("d", [1.0])), lambda: a.__setitem__(slice(0, 2), [1]),
        lambda: a.__setitem__(slice(0, 10, 2), array("q", [1])), lambda: a.insert("x", 1),
    )] == [("IndexError", "array assignment index out of range"),
           ("TypeError", "'str' object cannot be interpreted as an integer"),
           ("OverflowError", "signed char is greater than maximum"), ("TypeError", "arg must be list"),
           ("TypeError", "can only extend with array of same kind"),
           ("TypeError", 'can only assign array (not "list") to array slice'),
           ("ValueError", "attempt to assign array of size 1 to extended slice of size 5"),
           ("TypeError", "'str' object cannot be interpreted as an integer")])
    t = Tagged("i", [1, 2])
    t[0] = 5
    t.append(3)
    operator.setitem(t, 1, 9)
    results.append(type(t) is Tagged and t.total() == 17)
    del t[0]
    results.append(t.tolist() == [9, 3])
    g = array("i", [0] * 4)
    with memoryview(g) as view:
        g[2] = 7
        g[0:2] = array("i", [1, 1])
        results.append(view.tolist() == [1, 1, 7, 0])
        results.append(error(lambda: g.append(1))[0] == "BufferError")
    results.append(pickle.loads(pickle.dumps(g)) == g)
    struct.pack_into("i", g, 4, 42)
    results.append(g[1] == 42)
    results.append(array("q", [1, 2]) + array("q", [3]) == array("q", [1, 2, 3]))
    h = array("h", [1])
    h *= 3
    h += array("h", [2])
    results.append(h.tolist() == [1, 1, 1, 2] and h.count(1) == 3 and h.index(2) == 3)
    h.remove(2), h.reverse()
    results.append(h.pop() == 1 and h.buffer_info()[1] == 2)
    big = array("d", (x / 3 for x in range(20000)))
    with open("a.bin", "wb") as fh:
        big.tofile(fh)
    back = array("d")
    with open("a.bin", "rb") as fh:
        back.fromfile(fh, len(big))
    results.append(back == big)
    return sum(1 for ok in results if ok is True)
