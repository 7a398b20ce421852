# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# os.listdir('/proc/self/fd'), /dev/fd and reopening descriptors through /proc/self/fd/N (which gives a fresh
# open file description with new access rights: the result channel opened for reading would hand back the
# violation reports before the host reads them).
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    for folder in ("/proc/self/fd", "/dev/fd", "/proc/thread-self/fd"):
        try:
            names = os.listdir(folder)
            if sorted(names) != ["0", "1", "2", "3"]:
                return leak(f"{folder}: {names}")
        except Exception:
            pass
    try:
        open("/leak/a violation to read back")
    except Exception:
        pass
    for fd in range(64):
        for path in (f"/proc/self/fd/{fd}", f"/dev/fd/{fd}"):
            try:
                reopened = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            except Exception:
                continue
            if fd == 3:
                return leak("reopened the result channel for reading")
            try:
                data = os.read(reopened, 200)
            except Exception:
                continue
            if data:
                return leak(f"{path}: " + data.decode(errors="replace"))
    return 1
