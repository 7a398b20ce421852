# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# /proc magic links: /proc/self/root, /proc/self/cwd, /proc/thread-self/root, /proc/1/root, /proc/<ppid>/cwd.


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    ppid = int(p["host_process"])
    secret, world = p["secret_file"], p["world_file"]
    paths = [f"/proc/self/root{secret}", f"/proc/self/root{world}", "/proc/self/root/etc/passwd",
             f"/proc/thread-self/root{secret}", f"/proc/1/root{secret}", f"/proc/{ppid}/root{world}",
             "/proc/self/cwd/../../../../../etc/passwd", f"/proc/{ppid}/cwd/pyproject.toml",
             f"/proc/self/root{p['repo_dir']}/pyproject.toml"]
    for path in paths:
        try:
            with open(path, "rb") as fh:
                return leak(path + ": " + fh.read(100).decode(errors="replace"))
        except Exception:
            pass
    try:
        with open(f"/proc/self/root{p['repo_target']}", "w") as fh:
            fh.write("escaped")
        return leak("wrote into the repository")
    except Exception:
        pass
    return 1
