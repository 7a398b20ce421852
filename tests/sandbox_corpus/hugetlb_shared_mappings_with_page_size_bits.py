# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# MAP_HUGETLB in shared mappings and with the page size in the high flag bits (MAP_HUGE_2MB, MAP_HUGE_1GB: 21 and
# 30 shifted by 26), with MAP_NORESERVE and MAP_POPULATE: each form reaches a per-size pool of the machine. Every
# one must be refused before it (ENOSYS).
import errno
import mmap

MAP_HUGETLB, MAP_NORESERVE, MAP_POPULATE = 0x40000, 0x4000, 0x8000


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    answered = []
    for size_bits, extra in ((21 << 26, 0), (30 << 26, 0), (0, MAP_NORESERVE), (21 << 26, MAP_POPULATE)):
        flags = mmap.MAP_SHARED | mmap.MAP_ANONYMOUS | MAP_HUGETLB | size_bits | extra
        try:
            mmap.mmap(-1, 2 << 20, flags=flags).close()
            answered.append((hex(flags), "mapped"))
        except OSError as exc:
            if exc.errno != errno.ENOSYS:
                answered.append((hex(flags), errno.errorcode.get(exc.errno, exc.errno)))
    return leak(f"the huge page pools answered: {answered}") if answered else 1
