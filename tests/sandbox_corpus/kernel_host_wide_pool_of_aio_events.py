# expect: forbidden
# expect-kernel: ok
# value: 1
# Host-wide kernel pools one process can drain: the asynchronous I/O events of io_setup are drawn from one pool for
# the whole machine (fs.aio-max-nr, 65536 here), counted by no rlimit or cgroup. With the hook off (raw syscalls
# through ctypes) one run took all 65536 while it lived: every other process's io_setup then failed (EAGAIN).
# Must: io_setup refused, with the rest of Linux AIO (io_submit, io_getevents...), which no check needs.
import ctypes
import platform

IO_SETUP = {"x86_64": 206, "aarch64": 0}


def check(**p):
    number = IO_SETUP.get(platform.machine())
    if number is None:
        return 1  # another architecture: the filter has no numbers for it and refuses to run there
    libc = ctypes.CDLL(None, use_errno=True)
    taken = 0
    for events in (65536, 4096, 256, 1):
        context = ctypes.c_ulong(0)
        while taken < 2**20 and libc.syscall(ctypes.c_long(number), ctypes.c_long(events), ctypes.byref(context)) == 0:
            taken += events
            context = ctypes.c_ulong(0)
    return f"SANDBOX-ESCAPED io_setup took {taken} of the machine's aio events" if taken else 1
