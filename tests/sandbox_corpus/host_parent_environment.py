# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# The host's environment: os.environ, posix.environ, /proc/self/environ, /proc/<ppid>/environ, and the secret by
# name through os.getenv.
import os
import posix


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    name = p["secret_name"]
    for value in (os.environ.get(name), os.getenv(name), posix.environ.get(name.encode())):
        if value:
            return leak(str(value))
    # The bootstrap's own: scratch as the temp folder and the home (sandbox41), UTC as local time, C as gettext's only
    # language, no command search path.
    if set(os.environ) - {"TMPDIR", "HOME", "TZ", "LANGUAGE", "PYTHONTZPATH", "PATH"} or os.environ.get("HOME", os.getcwd()) != os.getcwd():
        return leak(f"inherited environment {sorted(os.environ)}")
    for path in (f"/proc/{p['host_process']}/environ", "/proc/self/environ", "/proc/1/environ"):
        try:
            with open(path, "rb") as fh:
                data = fh.read()
            if name.encode() in data or len(data) > 40:
                return leak(data.decode(errors="replace"))
        except Exception:
            pass
    return 1
