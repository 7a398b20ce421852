# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Leave the sandbox's namespaces or join the host's: os.unshare/os.setns where this Python has them, and the
# namespace files of this process, the parent and init under /proc (a descriptor there is a setns ticket).
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    unshare, setns = getattr(os, "unshare", None), getattr(os, "setns", None)
    if unshare is not None:
        for flag in ("CLONE_NEWUSER", "CLONE_NEWNS", "CLONE_NEWNET", "CLONE_NEWPID", "CLONE_NEWIPC"):
            try:
                unshare(getattr(os, flag))
                return leak(f"unshare({flag}) succeeded")
            except Exception:
                pass
    for pid in ("self", p["host_process"], "1"):
        for kind in ("mnt", "net", "pid", "user", "ipc", "uts", "cgroup"):
            try:
                fd = os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY)
            except Exception:
                continue
            if setns is not None and pid != "self":
                try:
                    setns(fd, 0)
                    return leak(f"joined the {kind} namespace of {pid}")
                except Exception:
                    pass
            os.close(fd)
            if pid != "self":
                return leak(f"opened /proc/{pid}/ns/{kind}")
    return 1
