# expect: ok|forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Host files read natively through the C library, with no audit event: pwd/grp (NSS reads /etc/passwd and
# /etc/group), os.getlogin (utmp), getpass.getuser, the resolver's /etc/hosts. Empty answers are fine; host
# accounts are not.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    found = []
    try:
        import pwd
        found += [e.pw_name for e in pwd.getpwall()]
        found.append(pwd.getpwuid(0).pw_name)
    except Exception:
        pass
    try:
        import grp
        found += [g.gr_name for g in grp.getgrall()]
    except Exception:
        pass
    for lookup in (os.getlogin, lambda: __import__("getpass").getuser()):
        try:
            found.append(lookup())
        except Exception:
            pass
    try:
        import socket
        found.append(socket.gethostbyname("localhost"))
    except Exception:
        pass
    found = [name for name in found if name]
    return leak(repr(found)) if found else 1
