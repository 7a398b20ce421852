# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: where the run keeps the host's uid, seccomp answers mode and time changes 0
# without running (the code owns the standard library's files there), a missing path included. `Path.touch()` of a
# new file bumps an existing one's times with `os.utime` first and creates the file only when that fails, so it made
# nothing in the degraded, kernel-only and no-Landlock sets (the full set, under its per-run uid, made it), and
# `os.chmod`, `os.utime` and `shutil.copymode` of a missing file raised nothing there. Every set must create the file
# and answer FileNotFoundError for the missing one, as the kernel does.
def check(**p):
    import os
    import pathlib
    import shutil

    marker = pathlib.Path("marker.txt")
    marker.touch()
    pathlib.Path("logs").mkdir()
    pathlib.Path("logs/run.log").touch(exist_ok=True)
    marker.touch()  # an existing one: no error
    os.utime("marker.txt", (1_000_000_000, 1_000_000_000))
    raised = []
    for change in (lambda: os.chmod("missing.txt", 0o600), lambda: os.utime("missing.txt"),
                   lambda: os.utime("no-folder/missing.txt", ns=(1, 1)),
                   lambda: shutil.copymode("marker.txt", "missing.txt")):
        try:
            change()
            raised.append(None)
        except FileNotFoundError:
            raised.append("FileNotFoundError")
    found = (marker.is_file(), sorted(os.listdir("logs")), raised)
    return 1 if found == (True, ["run.log"], ["FileNotFoundError"] * 4) else repr(found)
