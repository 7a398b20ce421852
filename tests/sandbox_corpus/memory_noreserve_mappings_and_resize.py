# expect: ok
# expect-kernel: ok
# value: 1
# Address space the kernel promises without backing it: MAP_NORESERVE mappings (private and shared) of 8 GiB, a
# small anonymous map resized to 8 GiB (mremap), the same with a huge-page hint. RLIMIT_AS counts reserved and
# unreserved address space alike, so each must fail; one that succeeds is memory the limit did not bound.
import mmap

BIG = 8 * 2**30
NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)


def attempts():
    yield lambda: mmap.mmap(-1, BIG, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | NORESERVE)
    yield lambda: mmap.mmap(-1, BIG, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS | NORESERVE)
    yield lambda: mmap.mmap(-1, BIG, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | NORESERVE | 0x40000)  # MAP_HUGETLB

    def resized():
        m = mmap.mmap(-1, 4096)
        m.resize(BIG)
        return m
    yield resized


def check(**p):
    got = []
    for attempt in attempts():
        try:
            m = attempt()
        except (OSError, ValueError, OverflowError, SystemError):
            continue
        got.append(len(m))
        m.close()
    return f"SANDBOX-ESCAPED mapped {got}" if got else 1
