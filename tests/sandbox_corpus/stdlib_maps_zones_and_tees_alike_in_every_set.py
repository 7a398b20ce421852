# expect: ok
# expect-kernel: ok
# value: 29
# Honest twin of `memory_mmap_item_converted_after_its_resize`, `memory_zoneinfo_transition_index_one_past_its_table`
# and `memory_tee_state_set_past_what_was_read`: what a check does with `mmap`, `zoneinfo` and `itertools.tee` answers
# alike in every set, the sealed ones included. Maps (12): a file in the scratch mapped, edited by item and by slice
# (extended and reversed slices, values of the code's own with `__index__`, from bytes, bytearrays, memoryviews and
# arrays, from the map itself), flushed and read back through the file; an anonymous map searched, moved, read, written
# and shrunk (with nothing held over it); `operator.setitem`, a subclass of its own, a copy-on-write map, a memoryview
# held while items are set, `re` over a map, and the errors an honest mistake gets (the same exception and message).
# Zones (10), where the C zones are absent (the pure-Python twin): zones by key converted to and from UTC across
# daylight saving (a gap and a fold), names and offsets, a zone file of the host's read with `from_file`, a TZif file
# of the check's own (version 1, from a BytesIO), the cache and `no_cache`, pickling by key, comparisons of aware
# datetimes in different zones, and the errors of a missing key and of a key that climbs out of the search path.
# Tees (7), whose iterators take no state there: split, read at different paces past the 57 values of one data link,
# copied (`copy.copy`, a tee of a tee), over a generator and a file; and the pickled states of a list iterator,
# `count`, `product`, `permutations`, `zip` and `enumerate` taken and restored mid-way (a `cycle` has no state since
# the sixty-seventh round).
import copy
import datetime as dt
import io
import itertools
import mmap
import operator
import pickle
import re
import struct
from array import array
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


class Three:
    def __index__(self):
        return 3


class Tagged(mmap.mmap):
    def total(self):
        return sum(self[:])


def mapped_error(call):
    try:
        call()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def maps():
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
    results.append(bytes(view[:5]) == b"hELLO" and mapped_error(lambda: a.resize(1024)) is not None)
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
    errors = [mapped_error(lambda: a.__setitem__(1024, 1)), mapped_error(lambda: a.__setitem__(0, 256)),
              mapped_error(lambda: a.__setitem__(0, "x")), mapped_error(lambda: a.__setitem__(0.5, 1)),
              mapped_error(lambda: a.__setitem__(slice(0, 2), b"x")), mapped_error(lambda: a.__setitem__(slice(0, 1), "x")),
              mapped_error(lambda: r.__setitem__(0, 1)), mapped_error(lambda: a.__delitem__(0))]
    results.append(errors == [
        "IndexError: mmap index out of range", "ValueError: mmap item value must be in range(0, 256)",
        "TypeError: mmap item value must be an int", "TypeError: mmap indices must be integer",
        "IndexError: mmap slice assignment is wrong size", "TypeError: a bytes-like object is required, not 'str'",
        "TypeError: mmap can't modify a readonly memory map.", "TypeError: mmap doesn't support item deletion"])
    a.close()
    c.close()
    r.close()
    results.append(mapped_error(lambda: a.__setitem__(0, 1)) == "ValueError: mmap closed or invalid")
    return sum(results)


def own_file():
    """A version 1 TZif file: one transition (at 10**9 s) from an hour east to two hours east."""
    head = b"TZif" + b"\0" * 16 + struct.pack(">6l", 0, 0, 0, 1, 2, 8)
    body = struct.pack(">l", 10**9) + bytes([1]) + struct.pack(">lbB", 3600, 0, 0) + struct.pack(">lbB", 7200, 1, 4)
    return head + body + b"ONE\0TWO\0"


def zone_error(call):
    try:
        call()
    except Exception as exc:
        return type(exc).__name__
    return None


def zones():
    results = []
    paris, york, utc = ZoneInfo("Europe/Paris"), ZoneInfo("America/New_York"), ZoneInfo("UTC")
    summer = dt.datetime(2021, 7, 1, 12, tzinfo=paris)
    results.append(summer.utcoffset() == dt.timedelta(hours=2) and summer.tzname() == "CEST"
                   and summer.dst() == dt.timedelta(hours=1))
    results.append(summer.astimezone(york).hour == 6 and summer.astimezone(utc).hour == 10)
    gap = dt.datetime(2021, 3, 14, 2, 30, tzinfo=york)  # skipped: fold 0 takes the offset before
    fold = dt.datetime(2021, 11, 7, 1, 30, tzinfo=york)
    results.append(gap.utcoffset() == dt.timedelta(hours=-5) and fold.tzname() == "EDT"
                   and fold.replace(fold=1).tzname() == "EST")
    stamp = dt.datetime(2021, 11, 7, 5, 30, tzinfo=dt.UTC)
    results.append(stamp.astimezone(york).fold == 0 and (stamp + dt.timedelta(hours=1)).astimezone(york).fold == 1)
    with open("/usr/share/zoneinfo/Europe/Paris", "rb") as fh:
        loaded = ZoneInfo.from_file(fh, key="paris-copy")
    results.append(dt.datetime(2021, 1, 1, tzinfo=loaded).utcoffset() == dt.timedelta(hours=1)
                   and str(loaded) == "paris-copy")
    own = ZoneInfo.from_file(io.BytesIO(own_file()), key="own")
    results.append([dt.datetime(y, 1, 1, tzinfo=own).tzname() for y in (2000, 2002)] == ["ONE", "TWO"]
                   and dt.datetime(2002, 1, 1, tzinfo=own).dst() == dt.timedelta(hours=1))
    results.append(ZoneInfo("Europe/Paris") is paris and ZoneInfo.no_cache("Europe/Paris") is not paris)
    results.append(pickle.loads(pickle.dumps(paris)) is paris and str(paris) == paris.key == "Europe/Paris")
    a = dt.datetime(2021, 7, 1, 12, tzinfo=paris)
    b = dt.datetime(2021, 7, 1, 6, tzinfo=york)
    results.append(a == b and sorted([b, a, dt.datetime(2021, 7, 1, 9, tzinfo=utc)])[0].tzinfo is utc)
    results.append([zone_error(lambda: ZoneInfo("Nowhere/Zone")), zone_error(lambda: ZoneInfo("../../etc/passwd"))]
                   == [ZoneInfoNotFoundError.__name__, "ValueError"])
    return sum(results)


def tees():
    results = []
    a, b, c = itertools.tee(iter(range(200)), 3)
    first = [next(a) for _ in range(120)]
    results.append(first == list(range(120)) and list(itertools.islice(b, 60)) == list(range(60)))
    d = copy.copy(b)
    results.append(next(d) == 60 and next(b) == 60 and list(c)[-1] == 199)
    e, f = itertools.tee(x * x for x in range(10))
    g, h = itertools.tee(e)
    results.append(list(g) == list(h) == list(f) == [x * x for x in range(10)])
    with open("lines.txt", "w") as fh:
        fh.write("".join(f"{n}\n" for n in range(100)))
    with open("lines.txt") as fh:
        left, right = itertools.tee(fh)
        results.append(sum(1 for _ in left) == 100 and next(right) == "0\n")
    states = []
    # (an islice is a generator in the sandbox since the sixty-third round, which does not pickle; a cycle takes and
    # gives no state since the sixty-seventh)
    for make in (lambda: iter([1, 2, 3, 4]), lambda: itertools.count(5, 2), lambda: itertools.product("ab", repeat=2),
                 lambda: itertools.permutations(range(3)), lambda: zip("abc", range(3), strict=True),
                 lambda: enumerate("xyz")):
        it = make()
        next(it)
        again, deep = pickle.loads(pickle.dumps(it)), copy.deepcopy(it)
        states.append(next(again) == next(deep) == next(it))
    results.append(all(states) and len(states) == 6)
    pairs = list(zip(*itertools.tee("abcdef"), strict=True))
    results.append(pairs == [(ch, ch) for ch in "abcdef"])
    results.append(list(itertools.pairwise(range(4))) == [(0, 1), (1, 2), (2, 3)])
    return sum(results)


def check(**p):
    return maps() + zones() + tees()
