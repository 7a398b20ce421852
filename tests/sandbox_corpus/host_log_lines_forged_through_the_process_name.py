# expect: forbidden
# expect-kernel: ok
# value: 1
# The name the host's kernel and tools give the run is its comm, which prctl(PR_SET_NAME) sets with no capability
# (native code, the hook off): any 15 bytes but NUL, terminal controls included. The kernel prints it raw in the lines
# it writes about the run (a crash's "<comm>[pid]: segfault at ...", an OOM kill's "Killed process N (<comm>)", the
# pids controller's): measured on main with the kernel layers alone, a run named "\x1b[31msshd\x1b[0m" that then
# faulted left those bytes raw in the kernel's log buffer (klogctl, /proc/kmsg: what rsyslog's imklog and busybox's
# dmesg read), so an operator's terminal ran the escapes and the log blamed sshd; `ps`, `top` and the audit records
# named it alike. Must: the name stays the interpreter's.
import ctypes

PR_SET_NAME, PR_GET_NAME = 15, 16
FORGED = b"\x1b[31msshd\x1b[0m"


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(ctypes.c_int(PR_SET_NAME), ctypes.c_char_p(FORGED), ctypes.c_ulong(0), ctypes.c_ulong(0),
               ctypes.c_ulong(0))
    name = ctypes.create_string_buffer(17)
    libc.prctl(ctypes.c_int(PR_GET_NAME), name, ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    if name.value == FORGED:
        return "SANDBOX-ESCAPED the run's name in the host's kernel log and process list is the code's: " \
               + name.value.hex()
    return 1
