# expect: exception|memory_limit
# kernel-independent
# ruff: noqa: SIM105
# Memory outside Python's allocator: anonymous mmaps of 8 GB, then many 64 MB ones touched page by page.
import mmap


def check(**p):
    maps = []
    try:
        maps.append(mmap.mmap(-1, 8 * 2**30))
    except (OSError, OverflowError):
        pass
    for _ in range(64):
        m = mmap.mmap(-1, 64 * 2**20)
        for i in range(0, len(m), 4096):
            m[i] = 1
        maps.append(m)
    return len(maps)
