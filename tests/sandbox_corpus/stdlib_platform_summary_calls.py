# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: platform.platform(), uname() (which unpacks the processor), processor() and
# architecture() run `uname -p` and `file` (forbidden with the hook: importing subprocess, in every set), and
# freedesktop_os_release() reads the host's /etc/os-release (forbidden, or PermissionError with the kernel layers
# alone): a check that logs the platform failed on one host and not another. Every set must answer as a machine
# without those commands or that file does, naming no host.
import platform


def check(**p):
    summary = (platform.platform(), platform.system(), tuple(platform.uname()), platform.processor(),
               platform.architecture(), platform.machine(), platform.python_version())
    if p["host_release"] in repr(summary) or p["host_version"] in repr(summary):
        return "SANDBOX-ESCAPED host kernel: " + repr(summary)
    try:
        release = platform.freedesktop_os_release()
    except OSError:
        release = None  # as on a machine without the file
    if release is not None:
        return "SANDBOX-ESCAPED host distribution: " + repr(release)
    return 1 if summary[1] == "Linux" and summary[0].startswith("Linux-") else repr(summary)
