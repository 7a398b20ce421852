# expect: forbidden
# expect-kernel: ok
# value: 1
# Which pages of a readable host file sit in the page cache tells what the host (or another run) has been reading:
# which modules it imported, which library paths it took. The kernel answers that without reading anything, again
# and again: a read with RWF_NOWAIT (EAGAIN unless cached; os.preadv, no audit event), and, with the hook off,
# mincore on a mapping of the file and cachestat (Linux 6.5). Timing an ordinary read remains, but it caches the page
# it measures: one look per page. A page read just before must not be reported cached by any of them (the read
# first, so that with the hook on, which then refuses ctypes, it is tried too).
import mmap
import os


def probes():
    import ctypes  # refused by the hook (forbidden): only the RWF_NOWAIT read is in reach there

    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long

    def mincore(fd, size):
        mapped = mmap.mmap(fd, min(size, 4096), access=mmap.ACCESS_COPY)
        try:
            anchor = ctypes.c_char.from_buffer(mapped)
            vector = ctypes.create_string_buffer(1)
            answered = libc.mincore(ctypes.c_void_p(ctypes.addressof(anchor)), ctypes.c_size_t(4096), vector) == 0
            del anchor
        finally:
            mapped.close()
        return answered and vector.raw[0] & 1

    def cachestat(fd, size):
        stat, cached_range = (ctypes.c_uint64 * 5)(), (ctypes.c_uint64 * 2)(0, size)  # the same number on both
        return syscall(451, fd, cached_range, stat, 0) == 0 and stat[0] > 0  # nr_cache

    return {"mincore": mincore, "cachestat": cachestat}


def check(**p):
    path = os.__file__
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        os.read(fd, 4096)  # the first page is cached now
        buffer = bytearray(4096)
        try:
            if os.preadv(fd, [buffer], 0, os.RWF_NOWAIT) > 0:
                return "SANDBOX-ESCAPED a RWF_NOWAIT read answered whether a host file's page is cached"
        except OSError:
            pass
        for name, probe in probes().items():
            try:
                if probe(fd, size):
                    return f"SANDBOX-ESCAPED {name} answered whether a host file's page is cached"
            except OSError:
                pass
    finally:
        os.close(fd)
    return 1
