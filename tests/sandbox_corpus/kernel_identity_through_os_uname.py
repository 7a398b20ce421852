# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The host kernel's identity through a call no audit event covers: os.uname() (and posix.uname) answered the host
# kernel's release (6.18.44-fc-v1147 here) and its build string (version: the build number and date), in all four
# sets (no namespace covers them), and its host name where no UTS namespace is made. Which kernel the host runs is
# a fingerprint of the host and of what it is exposed to. The host's values come in `p` to compare against.
import os
import posix


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(host_release="", host_version="", host_name="", **p):
    found = []
    for uname in (os.uname, posix.uname):
        try:
            answer = uname()
        except OSError:
            continue
        found += [f"{field}: {seen}" for field, seen, host in (("release", answer.release, host_release),
                                                                ("version", answer.version, host_version),
                                                                ("name", answer.nodename, host_name))
                  if host and seen == host]
    return leak(found) if found else 1
