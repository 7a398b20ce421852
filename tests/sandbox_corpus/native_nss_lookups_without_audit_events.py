# expect: ok
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# C-library lookups that read host files (/etc/group, /etc/protocols, /etc/services, /etc/passwd) with no audit
# event: os.getgrouplist for guessed account names, socket.getprotobyname (getservby* and the pwd/grp imports are
# audited, see native_nss_and_account_lookups). Where Landlock is missing, these read the host's files.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    found = []
    for user in ("root", "daemon", "bin", "sys", "nobody", "www-data", "postgres", "syslog", "messagebus", "ubuntu"):
        try:
            groups = os.getgrouplist(user, 12345)
        except Exception:
            continue
        if set(groups) - {12345}:
            found.append(f"{user}: {groups}")
    try:
        import socket
        for name in ("tcp", "udp", "icmp", "ipv6"):
            try:
                found.append(f"{name}: {socket.getprotobyname(name)}")
            except Exception:
                pass
    except Exception:
        pass
    return leak(repr(found)) if found else 1
