# expect: forbidden
# expect-kernel: ok
# value: 1
# With the hook off, futex() through ctypes on a mapping of a stdlib file: without FUTEX_PRIVATE_FLAG the kernel keys
# the futex on the file's inode and offset, not on the run's memory, so every process that maps the same file (a
# concurrent run, the host) meets at the same key: FUTEX_WAIT sleeps until another run's FUTEX_WAKE, which answers how
# many it woke (a channel between runs: test_sandbox_leaks.py). A run is one process: only private futexes (keyed on
# its own memory) may run; the shared operations must not.
import ctypes
import errno
import mmap
import os

FUTEX = {"x86_64": 202, "aarch64": 98}
FUTEX_WAIT, FUTEX_WAKE, FUTEX_WAKE_OP, FUTEX_WAIT_BITSET = 0, 1, 5, 9


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def check(**p):
    number = FUTEX.get(os.uname().machine)
    if number is None:
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    fd = os.open(os.__file__, os.O_RDONLY)
    address = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    os.close(fd)
    value = ctypes.c_uint32.from_address(address).value
    ran = []
    soon = Timespec(0, 1)
    for name, args in (("FUTEX_WAKE", (FUTEX_WAKE, 1, None)), ("FUTEX_WAIT", (FUTEX_WAIT, value, ctypes.byref(soon))),
                       ("FUTEX_WAIT_BITSET", (FUTEX_WAIT_BITSET, value ^ 1, None, None, 0xFFFFFFFF)),
                       ("FUTEX_WAKE_OP", (FUTEX_WAKE_OP, 1, None, ctypes.c_void_p(address), 0))):
        result = libc.syscall(number, ctypes.c_void_p(address), *args)
        if result >= 0 or ctypes.get_errno() in (errno.EAGAIN, errno.ETIMEDOUT, errno.EFAULT):
            ran.append(name)
    return f"SANDBOX-ESCAPED shared futexes on a host file ran: {ran}" if ran else 1
