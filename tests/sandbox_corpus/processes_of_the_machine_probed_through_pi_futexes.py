# expect: forbidden
# expect-kernel: ok
# value: 1
# limits: wall_seconds=5
# With the hook off, a private priority-inheritance futex in the code's own memory (allowed where shared futexes are
# not: its key is the run's own) whose word holds another task's id: FUTEX_LOCK_PI, FUTEX_TRYLOCK_PI and FUTEX_LOCK_PI2
# look that id up to attach a PI state to its owner (and would lend it the waiter's priority), answering ESRCH where
# no task has it and EPERM (or a wait) where one does: which pids and threads exist on the machine, the host's among
# them. No C library uses PI futexes but for PTHREAD_PRIO_INHERIT mutexes, which CPython never makes.
import ctypes
import errno
import os

FUTEX = {"x86_64": 202, "aarch64": 98}
FUTEX_PRIVATE_FLAG = 128
FUTEX_LOCK_PI, FUTEX_TRYLOCK_PI, FUTEX_LOCK_PI2 = 6, 8, 13


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def check(**p):
    number = FUTEX.get(os.uname().machine)
    if number is None:
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    told = {}
    for op in (FUTEX_TRYLOCK_PI, FUTEX_LOCK_PI, FUTEX_LOCK_PI2):
        answers = {}
        for name, pid in (("host", int(p["host_process"])), ("host thread", int(p["host_thread"])),
                          ("no task", 2**30 - 7)):
            word = ctypes.c_uint32(pid)
            past = Timespec(0, 0)  # an absolute time long gone: a lock that would wait times out at once
            result = libc.syscall(number, ctypes.byref(word), op | FUTEX_PRIVATE_FLAG, 0, ctypes.byref(past), None, 0)
            answers[name] = result if result >= 0 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())
        if len(set(answers.values())) > 1:
            told[op] = answers
    return f"SANDBOX-ESCAPED PI futexes tell which pids exist: {told}" if told else 1
