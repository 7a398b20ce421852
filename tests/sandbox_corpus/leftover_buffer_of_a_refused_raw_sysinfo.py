# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# sysinfo(2) with the hook off, into a marked buffer whose answer is read as glibc reads it (get_phys_pages,
# get_avphys_pages, qsort's memory bound: the return value unchecked). seccomp answered ENOSYS without running: the
# buffer came back as the caller left it, in C the stack's leftovers. Whatever the call answers must fill it, and
# with nothing of the machine's: no uptime, loads or process count, memory no more than the run may use.
import resource


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    import ctypes  # refused by the hook (forbidden): os.sysconf("SC_PHYS_PAGES") is the route there

    libc = ctypes.CDLL(None, use_errno=True)
    buf = (ctypes.c_ulong * 14)(*([0x4141414141414141] * 14))
    libc.sysinfo(buf)  # unchecked, as glibc's callers do
    uptime, loads, total, free, procs = buf[0], list(buf[1:4]), buf[4], buf[5], buf[10] & 0xFFFF
    unit = buf[13] & 0xFFFFFFFF
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if 0x4141414141414141 in list(buf[:10]) or uptime or any(loads) or procs != 1 or total * unit != limit \
            or free > total:
        return leak(f"sysinfo() left or answered: uptime {uptime}, loads {loads}, total {total} x {unit}, free {free}, "
                    f"processes {procs}")
    return 1
