# expect: forbidden
# expect-kernel: ok
# value: 1
# epoll, eventfd, timerfd, signalfd and Landlock ruleset descriptors all share one inode the kernel made at boot
# (anon_inode_getfile): os.fstat of select.epoll() or os.eventfd() (no audit event, no file to judge) gives its
# number and its times, the wall-clock moment the machine booted, which no time namespace shifts: the uptime the
# boot-relative clocks hide, a host fingerprint shared by every run of the machine. With the hook off, native code
# makes the rest (timerfd_create, signalfd4, landlock_create_ruleset; a seccomp listener the same), where the hook
# refuses importing ctypes. Every maker must fail, or the descriptor it makes must answer no fstat.
import os
import select
import time


def native_makers():
    try:
        import ctypes
    except ImportError:
        return {}
    libc = ctypes.CDLL(None, use_errno=True)
    x86 = os.uname().machine == "x86_64"
    numbers = {"timerfd_create": (283 if x86 else 85, 1, 0), "signalfd4": (289 if x86 else 74,)}
    mask, ruleset = ctypes.c_uint64(0), ctypes.c_uint64(1)  # no signal; a ruleset handling file execution
    numbers["signalfd4"] = (numbers["signalfd4"][0], -1, ctypes.addressof(mask), 8, 0)
    numbers["landlock_create_ruleset"] = (444, ctypes.addressof(ruleset), 8, 0)
    return {name: lambda nr=nr, args=args: libc.syscall(ctypes.c_long(nr), *map(ctypes.c_long, args)) for name, (nr, *args) in numbers.items()}


def boot_inode(makers):
    seen = {}
    for name, make in makers.items():
        try:
            fd = make()
        except Exception:
            continue
        if fd < 0:
            continue
        try:
            info = os.fstat(fd)
            seen[name] = (info.st_ino, round(time.time() - info.st_ctime))
        except OSError:
            pass
    return seen


def check(**p):
    keep = []
    makers = {"epoll": lambda: keep.append(select.epoll()) or keep[-1].fileno(), "eventfd": lambda: os.eventfd(0)}
    seen = boot_inode(makers) or boot_inode(native_makers())  # importing ctypes: the hook's refusal
    return f"SANDBOX-ESCAPED the boot-time inode (number, seconds since its times): {seen}" if seen else 1
