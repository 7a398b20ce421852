# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: ok
# value: 1
# Where the run keeps the host's uid, it owns the standard library's files as the host does, and Landlock has no right
# for mode or time changes: seccomp must keep chmod, fchmod and utime (by path and by descriptor) from running on them
# (refused, or answered 0 without running). Set to the values the file has, so that nothing changes if they run;
# the change time tells whether they did.
import os


def check(**p):
    path = os.__file__
    before = os.stat(path)
    attempts = [
        lambda: os.chmod(path, before.st_mode & 0o7777),
        lambda: os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns)),
    ]
    fd = os.open(path, os.O_RDONLY)
    attempts += [
        lambda: os.fchmod(fd, before.st_mode & 0o7777),
        lambda: os.utime(fd, ns=(before.st_atime_ns, before.st_mtime_ns)),
    ]
    for attempt in attempts:
        try:
            attempt()
        except OSError:
            pass
    os.close(fd)
    after = os.stat(path)
    if after.st_ctime_ns != before.st_ctime_ns:
        return f"SANDBOX-ESCAPED changed {path}'s inode: ctime {before.st_ctime_ns} -> {after.st_ctime_ns}"
    return 1
