# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# glibc reads files under /proc and /sys by its own constant paths, natively (no audit event, nothing the hook
# judges): os.getlogin() opens /proc/self/loginuid (the host's login session: ENXIO for a host with none, an error
# from the refused name services for one with a login uid), os.cpu_count() and os.sysconf("SC_NPROCESSORS_ONLN")
# /sys/devices/system/cpu/online and then /proc/stat (the machine's CPUs), "SC_NPROCESSORS_CONF"
# /sys/devices/system/cpu/possible. Where /proc and /sys are out of reach (an empty /proc, Landlock) glibc falls back:
# getlogin to the terminal of standard input (a pipe here: ENOTTY), the CPU counts to its constant 2. Where Landlock
# is missing and no namespace is made, the opens went to the host's files: the answer told of the host and the
# machine, and a check's result depended on them.
import errno
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    try:
        seen["getlogin"] = os.getlogin()
    except OSError as exc:
        if exc.errno != errno.ENOTTY:
            seen["getlogin"] = errno.errorcode.get(exc.errno, exc.errno)
    for name, value in (("cpu_count", os.cpu_count()), ("online", os.sysconf("SC_NPROCESSORS_ONLN")),
                        ("configured", os.sysconf("SC_NPROCESSORS_CONF"))):
        if value != 2:  # glibc's answer when neither /sys nor /proc/stat nor the affinity mask answers
            seen[name] = value
    return leak(f"glibc read the host's /proc and /sys: {seen}") if seen else 1
