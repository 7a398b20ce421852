# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 1
# `bytearray.__init__` run on a bytearray of the code's own (`bytearray.__init__(b, it)`, a subclass's
# `super().__init__(it)`) empties it, then appends each item the iterable gives through a fast path of its own: while
# `size + 1 < alloc` it bumps the size and writes the byte at `start + size - 1`, without asking how far `start` has
# moved into the allocation (CPython 3.11.7; every other append goes through `PyByteArray_Resize`, which counts it).
# A bytearray's start moves when bytes are cut off its head (`del b[:k]`, a cheap cut the seals keep for a parser's
# buffer) and the size stays at least half the allocation, so an iterable whose `__next__` (or an item's `__index__`)
# fills the bytearray and cuts a few bytes off its head has the next items written past the end of its block, into
# the next block of the allocator: another bytearray's buffer of the code's own here (a block of the same size made
# after it), which the code reads back, or a list's table of items (a forged object, as the earlier rounds' headers).
# Routes: `bytearray.__init__` with an iterator, with items whose `__index__` makes the cut, and a subclass's
# `super().__init__`. Each answers 1 where every other buffer kept its zeros; without the hook native code is
# assumed anyway (a crash, or the error).


def writes_past_its_block(route, size):
    cut = size // 17  # a cheap cut of the head: a sixteenth of the size at most
    target = bytearray()
    state = {"calls": 0}

    def prepare():
        state["pad"] = [bytearray(size) for _ in range(500)]  # free blocks of the buffer's size used up
        target.extend(b"\x01" * size)  # a buffer of `size + 1` bytes: a whole block of the allocator
        del target[:cut]  # the start moves `cut` bytes into it
        state["after"] = [bytearray(size) for _ in range(200)]  # blocks of the same size, made after it

    class Byte:
        def __index__(self):
            if state["calls"] == 0:
                prepare()
            state["calls"] += 1
            return 0x41

    class Items:
        def __iter__(self):
            return self

        def __next__(self):
            if state["calls"] >= size * 2:
                raise StopIteration
            if route == "index":
                return Byte()
            if state["calls"] == 0:
                prepare()
            state["calls"] += 1
            return 0x41

    class Sub(bytearray):
        def __init__(self, items):
            super().__init__(items)

    if route == "subclass":
        target = Sub(b"")
        Sub.__init__(target, Items())
    else:
        bytearray.__init__(target, Items())
    changed = sum(1 for block in state["after"] + state["pad"] if any(block))
    if changed or bytes(target) != b"\x01" * (size - cut) + b"\x41" * (size * 2):
        raise RuntimeError(f"bytearray.__init__ ({route}) wrote past its buffer's block: {changed} other buffers "
                           f"changed, {len(target)} bytes kept")
    return 1


def check(**p):
    return min(writes_past_its_block(route, size) for route in ("iterator", "index", "subclass")
               for size in (255, 383, 495))
