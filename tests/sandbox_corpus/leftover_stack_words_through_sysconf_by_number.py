# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The free-memory figure (SC_AVPHYS_PAGES: glibc's get_avphys_pages, sysinfo(2) unchecked like SC_PHYS_PAGES), asked by
# number instead of name (os.sysconf takes the integer too) and twice at different stack depths: the refused sysinfo
# left leftover words, a different value per call site and per run. It must be the same fixed answer every time, and
# no more than the total.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def deeper(depth, number):
    return deeper(depth - 1, number) if depth else os.sysconf(number)


def check(**p):
    number = os.sysconf_names["SC_AVPHYS_PAGES"]
    free, again, total = os.sysconf(number), deeper(30, number), os.sysconf("SC_PHYS_PAGES")
    if free != again or not 0 < free <= total:
        return leak(f"SC_AVPHYS_PAGES answered {free} and {again} (total {total})")
    return 1
