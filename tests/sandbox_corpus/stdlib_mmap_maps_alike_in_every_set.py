# expect: ok
# expect-kernel: ok
# value: 12
# Honest twin of `memory_mmap_item_converted_after_its_resize`: what a check does with `mmap.mmap` answers alike in
# every set, the sealed one included: a file in the scratch mapped, edited by item and by slice (extended and reversed
# slices, values of the code's own with `__index__`, from bytes, bytearrays, memoryviews and arrays, from the map
# itself), flushed and read back through the file; an anonymous map searched, moved, read, written and shrunk (with
# nothing held over it); `operator.setitem`, a subclass of its own, a copy-on-write map, a memoryview held while items
# are set, `re` over a map, and the errors an honest mistake gets (the same exception and message).
import mmap
import operator
import re
from array import array


class Three:
    def __index__(self):
        return 3


class Tagged(mmap.mmap):
    def total(self):
        return sum(self[:])


def error(call):
    try:
        call()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def check(**p):
    results = []
    with open("data.bin", "wb") as fh:
        fh.write(bytes(range(64)))
    with open("data.bin", "r+b") as fh, mmap.mmap(fh.fileno(), 0) as m:
        m[0], m[-1], m[Three()] = 200, Three(), 77
        m[4:8] = b"abcd"
        m[8:16:2] = bytearray(b"wxyz")
        m[20:16:-1] = memoryview(b"4321")
        m[24:28] = array("i", [0x01020304])
        m[28:32] = m[4:8]
        m.flush()
    with open("data.bin", "rb") as fh:
        data = fh.read()
    results.append(data[:4] == bytes([200, 1, 2, 77]) and data[4:8] == b"abcd" and data[8:16:2] == b"wxyz")
    results.append(data[17:21] == b"1234" and data[24:28] == bytes([4, 3, 2, 1]) and data[28:32] == b"abcd"
                   and data[-1] == 3)
    a = mmap.mmap(-1, 4096)
    a.write(b"hello mapped world")
    a[5] = ord("_")
    results.append(a.find(b"world", 0) == 13 and a.rfind(b"o", 0) == 14 and a[:12] == b"hello_mapped")
    a.move(100, 0, 5)
    a.seek(100)
    results.append(a.read(5) == b"hello" and a.tell() == 105)
    a.resize(2048)  # shrunk (an anonymous map grown by mremap has no pages behind its new tail: SIGBUS)
    a[2047] = 1
    results.append(len(a) == 2048 and a[2047] == 1 and a[:5] == b"hello")
    operator.setitem(a, 1, ord("E"))
    results.append(a[:2] == b"hE" and re.search(rb"m\w+", a).group() == b"mapped")
    view = memoryview(a)
    a[2], a[3:5] = ord("L"), b"LO"
    results.append(bytes(view[:5]) == b"hELLO" and error(lambda: a.resize(1024)) is not None)
    view.release()
    a.resize(1024)
    results.append(len(a) == 1024)
    t = Tagged(-1, 8)
    t[0], t[1:3] = 5, b"\x01\x02"
    results.append(t.total() == 8)
    with open("data.bin", "rb") as fh:
        c = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
        c[0] = 9
        r = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    results.append(c[0] == 9 and r[0] == 200)
    errors = [error(lambda: a.__setitem__(1024, 1)), error(lambda: a.__setitem__(0, 256)),
              error(lambda: a.__setitem__(0, "x")), error(lambda: a.__setitem__(0.5, 1)),
              error(lambda: a.__setitem__(slice(0, 2), b"x")), error(lambda: a.__setitem__(slice(0, 1), "x")),
              error(lambda: r.__setitem__(0, 1)), error(lambda: a.__delitem__(0))]
    results.append(errors == [
        "IndexError: mmap index out of range", "ValueError: mmap item value must be in range(0, 256)",
        "TypeError: mmap item value must be an int", "TypeError: mmap indices must be integer",
        "IndexError: mmap slice assignment is wrong size", "TypeError: a bytes-like object is required, not 'str'",
        "TypeError: mmap can't modify a readonly memory map.", "TypeError: mmap doesn't support item deletion"])
    a.close()
    c.close()
    r.close()
    results.append(error(lambda: a.__setitem__(0, 1)) == "ValueError: mmap closed or invalid")
    return sum(results)
