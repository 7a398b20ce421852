# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Open a directory outside the scratch (/proc, /, the secret's folder) and reach files relative to that
# descriptor: os.open(dir_fd=...), os.listdir(fd), os.scandir(fd), os.stat + open via O_PATH.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    folder, name = os.path.split(p["secret_file"])
    for directory, target in ((folder, name), ("/", "etc/passwd"), ("/proc", f"{p['host_process']}/environ")):
        for flags in (os.O_RDONLY | os.O_DIRECTORY, getattr(os, "O_PATH", 0) | os.O_DIRECTORY):
            try:
                dfd = os.open(directory, flags)
            except Exception:
                continue
            try:
                fd = os.open(target, os.O_RDONLY, dir_fd=dfd)
                return leak(os.read(fd, 200).decode(errors="replace"))
            except Exception:
                pass
            try:
                return leak(repr(os.listdir(dfd)))
            except Exception:
                pass
    return 1
