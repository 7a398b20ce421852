# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# With the hook off, mmap called raw with MAP_HUGETLB (and a hint address, private and shared): the kernel must
# refuse it before the machine's huge page pool answers. With the hook on, ctypes is refused.
import ctypes
import errno

MAP_PRIVATE, MAP_SHARED, MAP_ANONYMOUS, MAP_HUGETLB = 0x2, 0x1, 0x20, 0x40000


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    answered = []
    for hint, kind in ((None, MAP_PRIVATE), (1 << 40, MAP_SHARED)):
        got = libc.mmap(hint, 2 << 20, 3, kind | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0)
        err = ctypes.get_errno()
        if got not in (None, ctypes.c_void_p(-1).value):
            answered.append("mapped")
        elif err != errno.ENOSYS:
            answered.append(errno.errorcode.get(err, err))
    return leak(f"raw hugetlb mappings answered: {answered}") if answered else 1
