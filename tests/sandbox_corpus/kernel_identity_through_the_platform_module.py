# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The host kernel's identity through the platform module, which asks uname() once and caches what it said:
# platform.release(), platform.version(), platform.uname() and platform.node() named the host kernel (and the host
# where no UTS namespace is made) in all four sets.
import platform


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(host_release="", host_version="", host_name="", **p):
    seen = []
    for ask in (platform.release, platform.version, platform.node, lambda: (platform.uname().node, platform.uname().release, platform.uname().version)):
        try:
            seen.append(repr(ask()))
        except OSError:
            pass
    text = " ".join(seen)
    found = [host for host in (host_release, host_version) if host and host in text]
    if host_name and repr(host_name) in text:
        found.append(host_name)
    return leak(found) if found else 1
