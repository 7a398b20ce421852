# expect: forbidden
# expect-kernel: ok
# value: 1
# With the hook off ctypes is usable: raw calls that would take back what the bootstrap dropped (capset to every
# capability, the ambient set, another uid or gid, securebits, PR_SET_MM on its own memory map) or set the parent's
# scheduling (priority, CPU affinity, I/O priority). Each must fail; with the hook on, ctypes is refused.
import ctypes
import os


class Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    ulong = ctypes.c_ulong
    header, full = Header(0x20080522, 0), (Data * 2)()
    for half in full:
        half.effective = half.permitted = half.inheritable = 0xFFFFFFFF
    libc.capset(ctypes.byref(header), full)
    now = (Data * 2)()
    if libc.capget(ctypes.byref(header), now) == 0 and any(d.effective or d.permitted for d in now):
        return f"SANDBOX-ESCAPED capabilities back: {[(d.effective, d.permitted) for d in now]}"
    attempts = {
        "ambient CAP_SYS_ADMIN": lambda: libc.prctl(ulong(47), ulong(2), ulong(21), ulong(0), ulong(0)),
        "securebits": lambda: libc.prctl(ulong(28), ulong(0), ulong(0), ulong(0), ulong(0)),
        "PR_SET_MM start_brk": lambda: libc.prctl(ulong(35), ulong(6), ulong(0x10000), ulong(0), ulong(0)),
        "setresuid": lambda: libc.setresuid(12345, 12345, 12345),
        "setresgid": lambda: libc.setresgid(12345, 12345, 12345),
        "parent priority": lambda: libc.setpriority(0, int(p["host_process"]), 19),
        "parent affinity": lambda: libc.sched_setaffinity(int(p["host_process"]), 8, ctypes.byref(ctypes.c_ulong(1))),
        "parent I/O priority": lambda: libc.syscall(251, 1, int(p["host_process"]), (3 << 13)),  # ioprio_set, x86_64
    }
    if os.uname().machine != "x86_64":
        del attempts["parent I/O priority"]
    for name, attempt in attempts.items():
        if attempt() == 0:
            return f"SANDBOX-ESCAPED {name} succeeded"
    return 1
