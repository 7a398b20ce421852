# expect: forbidden
# expect-kernel: ok
# value: 1
# The hook lets `code.__new__` through from one frame, `types.coroutine`'s (asyncio's tasks mark generator code as
# an awaitable coroutine's at import), and only where its `co` is exactly a code object and the new flags are its own
# plus CO_ITERABLE_COROUTINE. Crafted flags (CO_VARARGS and CO_VARKEYWORDS on a function without them: its frame would
# be written past its end) reached through that frame: a callable posing as a function whose `__code__` poses as a
# code object with a real code's `replace` and made-up flags; the gate's own code object run under a function of the
# code's (its own globals); `replace` called directly.
import types


def plain(a):
    return a


REAL = plain.__code__


class FakeCode:
    __class__ = types.CodeType
    co_flags = 0x20 | 0x08 | 0x04
    replace = REAL.replace


class FakeFunction:
    __class__ = types.FunctionType
    __code__ = FakeCode()

    def __call__(self):
        pass


# The gate's code under `gate` reads these from this module (what the fakes' `__class__` answers).
FunctionType, CodeType = types.FunctionType, types.CodeType


def gate(func):
    pass


def check(**p):
    made = []
    attempts = [lambda: types.coroutine(FakeFunction()), lambda: REAL.replace(co_flags=REAL.co_flags | 0x0C)]
    try:
        gate.__code__ = types.coroutine.__code__
        attempts.append(lambda: gate(FakeFunction()))
    except ValueError:
        pass
    for attempt in attempts:
        try:
            attempt()
            made.append(attempt)
        except Exception:
            pass
    if REAL.co_flags & 0x0C or plain.__code__.co_flags & 0x0C:
        return "SANDBOX-ESCAPED crafted flags"
    return 1
