# expect: ok
# needs: min-root
# value: 1
# ruff: noqa: SIM105, SIM115
# The host's zone by name, without reading a file: os.readlink and os.path.realpath of /etc/localtime (no audit
# event, no Landlock right) give the zoneinfo path it points to ("Europe/Paris"). With a root of the run's own there
# is no /etc/localtime to ask.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = []
    for ask in (lambda: os.readlink("/etc/localtime"), lambda: os.path.realpath("/etc/localtime", strict=True),
                lambda: os.stat("/etc/localtime").st_size):
        try:
            seen.append(ask())
        except OSError:
            pass
    return leak(f"the host's time zone: {seen}") if seen else 1
