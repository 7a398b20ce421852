# expect: ok
# value: 1
# needs: mountns
# ruff: noqa: SIM105, SIM115
# The machine's count of anonymous devices (tmpfs_device_numbers_count_the_machines_mounts_through_stat) read
# through open descriptors instead of paths: os.fstat (and os.stat of a number) of a file the code makes in its
# scratch, of /dev/null and of the scratch folder opened as a directory; no audit event for any of them.
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
    opened = []
    try:
        with open("mine.txt", "w") as f:
            f.write("x")
        opened.append(("scratch file", os.open("mine.txt", os.O_RDONLY)))
        opened.append(("/dev/null", os.open("/dev/null", os.O_RDONLY)))
        opened.append(("scratch folder", os.open(".", os.O_RDONLY | os.O_DIRECTORY)))
    except OSError:
        pass
    for what, fd in opened:
        for how, stat in (("fstat", os.fstat), ("stat", os.stat)):
            try:
                dev = stat(fd).st_dev
            except OSError:
                continue
            if os.major(dev) == 0 and os.minor(dev) < FIXED_FROM:
                seen[f"{how} {what}"] = f"0:{os.minor(dev)}"
        os.close(fd)
    return leak(f"the machine's anonymous device count: {seen}") if seen else 1
