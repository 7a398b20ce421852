# expect: forbidden
# expect-kernel: ok
# value: 1
# The futex2 calls (Linux 5.16 and 6.7) with the hook off, on a mapping of a stdlib file: futex_wake and futex_wait
# without FUTEX2_PRIVATE meet every process that maps the file at one key, as futex() does; futex_waitv and
# futex_requeue carry their flags in structs in memory, beyond what a syscall filter can read. No C library uses them;
# none may run.
import ctypes
import errno
import mmap
import os

FUTEX_WAITV, FUTEX_WAKE, FUTEX_WAIT, FUTEX_REQUEUE = 449, 454, 455, 456  # the same on x86_64 and aarch64
FUTEX2_SIZE_U32 = 2


class Waiter(ctypes.Structure):
    _fields_ = [("val", ctypes.c_uint64), ("uaddr", ctypes.c_uint64), ("flags", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32)]


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def check(**p):
    if os.uname().machine not in ("x86_64", "aarch64"):
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    fd = os.open(os.__file__, os.O_RDONLY)
    address = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    os.close(fd)
    value = ctypes.c_uint32.from_address(address).value
    waiters = (Waiter * 2)(Waiter(value ^ 1, address, FUTEX2_SIZE_U32, 0), Waiter(value ^ 1, address, FUTEX2_SIZE_U32, 0))
    ran = []
    for name, number, args in (
        ("futex_wake", FUTEX_WAKE, (ctypes.c_void_p(address), ctypes.c_ulong(0xFFFFFFFF), 1, FUTEX2_SIZE_U32)),
        ("futex_wait", FUTEX_WAIT, (ctypes.c_void_p(address), ctypes.c_ulong(value ^ 1), ctypes.c_ulong(0xFFFFFFFF),
                                    FUTEX2_SIZE_U32, None, 1)),
        ("futex_waitv", FUTEX_WAITV, (waiters, 1, 0, None, 1)),
        ("futex_requeue", FUTEX_REQUEUE, (waiters, 0, 1, 0)),
    ):
        result = libc.syscall(number, *args)
        if result >= 0 or ctypes.get_errno() in (errno.EAGAIN, errno.ETIMEDOUT, errno.EINVAL):
            ran.append(name)
    return f"SANDBOX-ESCAPED futex2 calls on a host file ran: {ran}" if ran else 1
