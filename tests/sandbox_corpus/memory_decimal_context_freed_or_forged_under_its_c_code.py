# expect: ok
# value: 2
# The C decimal module (`_decimal`, CPython 3.11.7) takes the current context as a borrowed reference from its
# context variable (`CURRENT_CONTEXT`: `PyContextVar_Get`, then `Py_DECREF`) and reads and writes it as a C context
# without looking at its type. The variable is the code's to reach (`contextvars.copy_context()` lists it, by the name
# `decimal_context`) and to set to any object: set to a `bytes` of the code's own, `Decimal(1) / 3` wrote the
# division's flags (Inexact, Rounded) into the bytes' immutable storage (a bytearray's start pointer took them the
# same way: SIGSEGV when read, 4 of 10 runs on plain 3.11.7). And code that C runs while it holds the borrowed context (a key's `__eq__` in the
# override dict `Decimal.__format__` takes) may set a new context, freeing the one C goes on reading: C rounded by
# whatever took its block next, a bytes object of the code's own (`1.25` formatted `.1f` gave `1.3`, the rounding mode
# read from the bytes' zeros, where the context says half-even: `1.2`). Routes: a context of the wrong type, a context
# freed while C reads it. Each answers 1 where C never reads a context that is not a live `decimal.Context`.
import contextvars
import decimal

HELD = []


def typed():
    decimal.getcontext()  # the variable is set, and listed
    var = next(v for v in contextvars.copy_context() if v.name == "decimal_context")
    forged = bytes(63)  # 96 bytes in all, a C context's size
    token = var.set(forged)
    try:
        decimal.Decimal(1) / 3
    except Exception:  # a context that is no context refused: what a sound module does
        pass
    finally:
        var.reset(token)
    if forged != bytes(63):
        raise RuntimeError(f"typed: C wrote a decimal context's flags into a bytes object of the code's own: {forged[:16]!r}")
    return 1


class Key:
    """A key of the override dict whose comparison sets a new context while C holds the current one, borrowed."""

    armed = False

    def __hash__(self):
        return hash("decimal_point")

    def __eq__(self, other):
        if Key.armed:
            Key.armed = False
            decimal.setcontext(decimal.Context())  # the context C reads is freed
            HELD.extend(bytes(63) for _ in range(4000))  # its block taken by a bytes object of the code's own
        return False


def freed():
    decimal.setcontext(decimal.Context(traps=[]))
    honest = decimal.Decimal("1.25").__format__(".1f")
    override = {Key(): 1, "decimal_point": ".", "thousands_sep": ",", "grouping": "\x03"}
    Key.armed = True  # after the dict is built: its own inserts compared the key already
    try:
        got = decimal.Decimal("1.25").__format__(".1f", override)
    except Exception:  # an override refused: what a sound module may do
        got = honest
    decimal.setcontext(decimal.Context())
    if got != honest:
        raise RuntimeError(f"freed: a freed decimal context's rounding read from the code's own bytes: {got} where "
                           f"the context gives {honest}")
    return 1


def check(**p):
    return typed() + freed()
