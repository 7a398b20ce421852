# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# statvfs of the system files and library folders the sandbox binds or lets the loader read (zoneinfo, the C
# library's folder, the loader cache): the host's root file system, its size and free space. Where the minimal root
# lacks one, the name is simply not there; no host file system may answer for any that is.
import os
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    arch = getattr(sys.implementation, "_multiarch", "")
    answered = {}
    for path in ("/etc/localtime", "/usr/share/zoneinfo", "/etc/ld.so.cache", f"/lib/{arch}", f"/usr/lib/{arch}",
                 "/lib64", os.path.realpath(os.path.join(sys.base_prefix, "lib"))):
        try:
            st = os.statvfs(path)
            answered[path] = (st.f_blocks, st.f_bfree)
        except OSError:
            pass
    return leak(f"host root file system statistics: {answered}") if answered else 1
