# expect: forbidden
# expect-kernel: ok
# value: 1
# limits: max_processes=2
# pidfd_open is refused, but clone hands out a pidfd of the thread it starts where the flags ask for one
# (CLONE_PIDFD with CLONE_THREAD, Linux 6.9+; native code, the hook off: glibc's clone() starting usleep on a stack of
# the code's). Such a descriptor is a pidfs inode, numbered from one counter of the machine's that every process and
# thread it ever started moved: `os.fstat(pidfd).st_ino` read 417241, then 417244 in the next run, which had every
# kernel layer (a pid namespace of its own, where getpid answers 2): the machine's activity that the pid namespace
# hides, live; its PIDFD_GET_INFO ioctl (type byte 0xFF) answered the thread's parent, the host's pid (28206, where
# getppid answers 0), where no pid namespace is made, and the *_NAMESPACE ioctls handed out descriptors of the run's
# namespaces (nsfs numbers: how many namespaces the machine holds; the cgroup one was the host's own). Escaped on main with the kernel layers alone. Must: no thread comes with a pidfd.
import ctypes
import fcntl
import os
import struct

CLONE_FLAGS = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000  # VM, FS, FILES, SIGHAND, THREAD, SYSVSEM
CLONE_PIDFD = 0x1000
PIDFD_GET_INFO = 0xC050FF0B


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    stack = (ctypes.c_char * 65536)()
    top = ctypes.c_void_p((ctypes.addressof(stack) + 65536 - 64) & ~15)
    sleeper = ctypes.cast(libc.usleep, ctypes.c_void_p)  # the thread sleeps 0.2 s, then exits (glibc's clone)
    pidfd = ctypes.c_int(-1)
    tid = libc.clone(sleeper, top, ctypes.c_int(CLONE_FLAGS | CLONE_PIDFD), ctypes.c_void_p(200000),
                     ctypes.byref(pidfd), None, None)
    if tid < 0 or pidfd.value < 0:
        return 1
    found = {"pidfs inode (the machine's process counter)": os.fstat(pidfd.value).st_ino}
    info = bytearray(struct.pack("<Q", 0xFFFF) + bytes(72))
    try:
        fcntl.ioctl(pidfd.value, PIDFD_GET_INFO, info)
        found["pid, tgid, ppid"] = struct.unpack_from("<III", info, 16)
    except OSError:
        pass
    os.close(pidfd.value)
    return f"SANDBOX-ESCAPED a thread's pidfd: {found}"
