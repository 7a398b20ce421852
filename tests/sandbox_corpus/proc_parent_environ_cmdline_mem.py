# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# The parent's /proc entries: environ, cmdline, maps + mem (read its memory), status; and pid 1's.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    ppid = int(p["host_process"])
    for pid in (ppid, 1):
        for entry in ("environ", "cmdline", "status", "maps", "auxv"):
            try:
                with open(f"/proc/{pid}/{entry}", "rb") as fh:
                    data = fh.read(4096)
                if data:
                    return leak(f"{pid}/{entry}: " + data.decode(errors="replace"))
            except Exception:
                pass
    try:
        fd = os.open(f"/proc/{ppid}/mem", os.O_RDONLY)
        return leak(repr(os.pread(fd, 64, 0x400000)))
    except Exception:
        pass
    try:
        fd = os.open(f"/proc/{ppid}/mem", os.O_RDWR)
        return leak("opened the parent's memory for writing")
    except Exception:
        pass
    return 1
