# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# World-readable host files outside the scratch directory and the standard library: a canary next to the host's
# state, /etc/passwd, /etc/hostname, the repository's files, the interpreter's site-packages.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    paths = [p["world_file"], "/etc/passwd", "/etc/hostname", "/etc/hosts", "/etc/os-release",
             os.path.join(p["repo_dir"], "pyproject.toml"), os.path.join(p["repo_dir"], "README.md"),
             "/proc/version", "/proc/sys/kernel/hostname"]
    for path in paths:
        try:
            with open(path, "rb") as fh:
                data = fh.read(200)
            return leak(path + ": " + data.decode(errors="replace"))
        except Exception:
            pass
    for folder in ("/", "/etc", "/home", "/root", p["repo_dir"], os.path.dirname(p["world_file"])):
        try:
            return leak(folder + ": " + repr(os.listdir(folder)[:5]))
        except Exception:
            pass
    return 1
