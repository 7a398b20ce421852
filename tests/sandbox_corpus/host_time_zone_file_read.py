# expect: forbidden
# needs: min-root
# value: 1
# ruff: noqa: SIM105, SIM115
# The host's time zone, read from the file that configures it: /etc/localtime (its TZif data names the zone and its
# rules): where the host stands, a fingerprint like its name. A check's local time must not depend on the machine
# it runs on either. Where a root of the run's own leaves it out, nothing may read it. (Without one, a link to a
# zoneinfo file is followed into the readable zoneinfo folder: a known limit.)


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    try:
        with open("/etc/localtime", "rb") as fh:
            data = fh.read()
    except OSError:
        return 1
    return leak(f"the host's time zone file: {len(data)} bytes, ends {data[-24:]!r}")
