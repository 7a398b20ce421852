# expect: ok
# needs: min-root
# value: 1
# ruff: noqa: SIM105, SIM115
# The host's zone through the stdlib: zoneinfo.ZoneInfo("localtime") opens zoneinfo's own "localtime" entry, a link to
# /etc/localtime on Debian-like systems, so the readable zoneinfo folder leads to the host's configuration; and the
# local time the C library computes for the code must be the same on every host (UTC), not the host's.
import time
import zoneinfo


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    found = []
    try:
        zone = zoneinfo.ZoneInfo("localtime")
        found.append(f"zoneinfo localtime: {zone.utcoffset(None)}")
    except (zoneinfo.ZoneInfoNotFoundError, OSError, ValueError):
        pass
    if time.localtime().tm_zone != "UTC" or time.tzname[0] != "UTC":
        found.append(f"local time in {time.tzname}")
    return leak(f"the host's time zone: {found}") if found else 1
