# expect: forbidden
# ruff: noqa: SIM105, SIM115, B023
# expect-kernel: ok
# value: 1
# Host file data that no open() reads: extended attributes (the test stores the secret and the canary in user.*
# attributes of the host's files), by path, through a symlink-free lgetxattr, and listed.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    for path in (p["secret_file"], p["world_file"], p["host_file"]):
        for read in (lambda: os.listxattr(path), lambda: os.getxattr(path, "user.coworkenv"),
                     lambda: os.getxattr(path, "user.coworkenv", follow_symlinks=False)):
            try:
                value = read()
            except Exception:
                continue
            if value:
                return leak(f"xattr of {path}: {value!r}")
    return 1
