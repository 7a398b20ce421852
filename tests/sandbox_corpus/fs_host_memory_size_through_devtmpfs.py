# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# shutil.disk_usage of /dev/null: devtmpfs is sized from the machine's memory (half of it by default), so its total
# is the host's RAM, which sysinfo's refusal keeps from os.sysconf. No host file system may answer.
import shutil


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    answered = {}
    for path in ("/dev/null", "/dev/urandom", "/dev/zero"):
        try:
            answered[path] = shutil.disk_usage(path)
        except OSError:
            pass
    return leak(f"devtmpfs usage (the host's memory): {answered}") if answered else 1
