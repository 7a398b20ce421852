# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# `bytearray.join` takes its separator's data pointer and size first, then turns the argument into a list (an
# `__iter__` or generator of the code's own), then copies the separator between the items from the pointer it took
# (CPython gh-112625, fixed in 3.11.8; this interpreter is 3.11.7). A generator that empties the separator (its 56-byte
# buffer goes back to the allocator) and makes bytearrays (their 56-byte headers take that block) has join copy one of
# those headers into the result: the freed memory is read, here the address of a buffer, which no Python call answers
# (with a separator of 1 MiB the freed mapping is gone: SIGSEGV). With the hook the separator is copied after the
# argument is read, so the result holds the separator it has then (1); without it native code is assumed anyway.
import os
import struct

HELD = []


def hooked():
    """Whether the audit hook runs (it refuses a hard link in the scratch)."""
    with open("a", "w"):
        pass
    try:
        os.link("a", "b")
    except OSError as exc:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_name == "hook":
                return True
            tb = tb.tb_next
    return False


def check(**p):
    if not hooked():  # native code is assumed anyway
        return 1
    tag = struct.pack("<q", id(bytearray))  # the type pointer of a bytearray header
    for _ in range(16):
        sep = bytearray(55)  # 56 bytes of buffer: the size of a bytearray's header

        def items(sep=sep):
            yield b"["
            sep.clear()  # the buffer join's pointer names goes back to the allocator
            HELD.extend(bytearray(b"x") for _ in range(8))  # headers of the same size take it
            yield b"]"

        joined = bytes(sep.join(items()))
        if tag in joined:
            return "SANDBOX-ESCAPED bytearray.join read a bytearray header from its freed separator: " + joined.hex()
        if joined != b"[]":
            return "SANDBOX-ESCAPED bytearray.join read freed memory: " + joined.hex()
    return 1
