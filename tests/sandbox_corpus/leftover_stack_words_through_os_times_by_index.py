# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The same leftover words as leftover_stack_words_through_os_times, read as the tuple os.times() is (by index, and
# through two calls whose answers must agree): with the refused times(2) leaving its buffer unwritten, two calls at
# different stack depths read different leftovers, and every run its own (ASLR): a value that tells one run from the
# next. A refused call must answer the same fixed figures every time.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def deeper(depth):
    return deeper(depth - 1) if depth else tuple(os.times())


def check(**p):
    first, second = tuple(os.times()), deeper(40)
    if first[:4] != second[:4] or any(value > 3600 for value in first[:4]):
        return leak(f"os.times() read leftover words: {first[:4]} and {second[:4]}")
    return 1
