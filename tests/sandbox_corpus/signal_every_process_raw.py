# expect: forbidden
# expect-kernel: ok
# value: 1
# Regression guard (main holds it): signals beyond the child, sent as the raw calls native code makes with the hook
# off. kill(-1) reaches every process the sender may signal: as uid 0 without a per-run uid and without seccomp, the
# whole container. Signal 0 asks without sending; any call that answers 0 could have sent SIGKILL the same way. With
# the hook on, os.kill(-1) is refused and ctypes too.
import os


def check(**p):
    try:
        os.kill(-1, 0)
        return "SANDBOX-ESCAPED kill(-1) answered"
    except OSError:
        pass
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    parent, own = int(p["host_process"]), os.getpid()
    numbers = {"x86_64": {"tgkill": 234, "tkill": 200, "rt_sigqueueinfo": 129},
               "aarch64": {"tgkill": 131, "tkill": 130, "rt_sigqueueinfo": 138}}.get(os.uname().machine, {})
    info = ctypes.create_string_buffer(128)
    attempts = {
        "kill(-1)": lambda: libc.kill(-1, 0),
        "kill(parent)": lambda: libc.kill(parent, 0),
        "kill(init)": lambda: libc.kill(1, 0),
        "kill(-parent's group)": lambda: libc.kill(-os.getpgid(parent) if parent > 1 else -1, 0),
        "tgkill(parent)": lambda: libc.syscall(numbers["tgkill"], parent, parent, 0),
        "tkill(parent)": lambda: libc.syscall(numbers["tkill"], parent, 0),
        "rt_sigqueueinfo(parent)": lambda: libc.syscall(numbers["rt_sigqueueinfo"], parent, 0, info),
    }
    if not numbers:
        attempts = {k: v for k, v in attempts.items() if k.startswith("kill")}
    for name, attempt in attempts.items():
        try:
            if attempt() == 0:
                return f"SANDBOX-ESCAPED {name} answered"
        except OSError:  # getpgid of a process out of reach
            pass
    if libc.kill(own, 0) != 0:
        return "a signal to itself was refused too"
    return 1
