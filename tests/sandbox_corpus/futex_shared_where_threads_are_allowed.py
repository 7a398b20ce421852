# expect: forbidden
# expect-kernel: ok
# value: 1
# limits: max_processes=2
# The shared futex operations on a mapping of a stdlib file (keyed on the file's inode and offset, the same for every
# process that maps it: a channel between concurrent runs, test_sandbox_leaks.py), in a run that may start a thread
# (max_processes 2): the filter let every futex operation through there, for glibc waits on a thread's exit with a
# shared one. A wait that sleeps (or is woken) and a wake, requeue or wake-op that runs are the channel's two ends;
# a wait answered at once with EAGAIN (as when the word changed) sleeps on nothing.
import ctypes
import errno
import mmap
import os

FUTEX = {"x86_64": 202, "aarch64": 98}
FUTEX_WAIT, FUTEX_WAKE, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP = 0, 1, 3, 4, 5
FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET, FUTEX_CLOCK_REALTIME = 9, 10, 256


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
    address = libc.mmap(None, 8192, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
    os.close(fd)
    word, other = ctypes.c_void_p(address), ctypes.c_void_p(address + 4096)
    value = ctypes.c_uint32.from_address(address).value
    soon = Timespec(0, 1000)
    ran = []
    waits = (("FUTEX_WAIT", (FUTEX_WAIT, value, ctypes.byref(soon))),
             ("FUTEX_WAIT_BITSET|CLOCK_REALTIME", (FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, value,
                                                   ctypes.byref(Timespec(0, 0)), None, 0xFFFFFFFF)))
    for name, args in waits:
        if libc.syscall(number, word, *args) >= 0 or ctypes.get_errno() == errno.ETIMEDOUT:
            ran.append(name)  # it slept on the file's key (or was woken there)
    wakes = (("FUTEX_WAKE", (FUTEX_WAKE, 1)), ("FUTEX_WAKE_BITSET", (FUTEX_WAKE_BITSET, 1, None, None, 0xFFFFFFFF)),
             ("FUTEX_REQUEUE", (FUTEX_REQUEUE, 1, 1, other)),
             ("FUTEX_CMP_REQUEUE", (FUTEX_CMP_REQUEUE, 1, 1, other, value)),
             ("FUTEX_WAKE_OP", (FUTEX_WAKE_OP, 1, 1, other, 0)))
    for name, args in wakes:
        if libc.syscall(number, word, *args) >= 0 or ctypes.get_errno() == errno.EFAULT:
            ran.append(name)
    return f"SANDBOX-ESCAPED shared futexes on a host file ran where threads may start: {ran}" if ran else 1
