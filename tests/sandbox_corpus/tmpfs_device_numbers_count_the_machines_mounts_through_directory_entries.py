# expect: ok
# value: 1
# needs: mountns
# ruff: noqa: SIM105, SIM115
# The machine's count of anonymous devices (tmpfs_device_numbers_count_the_machines_mounts_through_stat) read
# through the scratch's directory entries and relative lookups: os.scandir's DirEntry.stat (fstatat on the
# folder's descriptor), os.stat with dir_fd; no audit event. Mount points must still be told apart (os.path.ismount
# compares a folder's device with its parent's).
import os

FIXED_FROM = 0xFFFF0


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    devs = []
    os.mkdir("sub")
    with os.scandir(".") as entries:
        devs += [(f"scandir ./{e.name}", e.stat().st_dev) for e in entries]
    fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in ("sub", "."):
            devs.append((f"dir_fd ./{name}", os.stat(name, dir_fd=fd).st_dev))
        devs.append(("fstatat AT_EMPTY_PATH", os.stat(fd).st_dev))
    finally:
        os.close(fd)
    devs += [(f"walk {top}", os.stat(top).st_dev) for top, _, _ in os.walk(".")]
    for what, dev in devs:
        if os.major(dev) == 0 and os.minor(dev) < FIXED_FROM:
            seen[what] = f"0:{os.minor(dev)}"
    # The device numbers still tell the mounts apart: "/dev" is a mount point, "/tmp" and "sub" are not.
    if os.path.ismount("sub") or not os.path.ismount("/") or not os.path.ismount("/dev"):
        return leak("mount points no longer told apart")
    return leak(f"the machine's anonymous device count: {dict(list(seen.items())[:6])}") if seen else 1
