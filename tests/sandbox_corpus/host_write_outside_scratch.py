# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Writes into the repository, the host's temp dir and the host's state file by every route: os.open(O_CREAT),
# append mode, rename/replace out of scratch, shutil.copy/move, os.mkdir, os.truncate, os.utime, os.chmod,
# sqlite3.connect, io.FileIO, pathlib; and the host file's metadata (mode, times, owner), which Landlock does not
# cover: seccomp must where the code runs as the uid that owns it.
import io
import os
import pathlib
import shutil
import sqlite3


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    repo, tmp, host = p["repo_target"], p["tmp_target"], p["host_file"]
    with open("payload", "w") as fh:
        fh.write("escaped")
    try:
        before = os.stat(host)
    except OSError:  # not even reachable from here (another uid): the test checks it from outside
        before = None
    writers = [
        lambda: os.close(os.open(repo, os.O_WRONLY | os.O_CREAT, 0o644)),
        lambda: open(host, "a").write("x"),
        lambda: os.replace("payload", repo),
        lambda: os.rename("payload", tmp),
        lambda: shutil.copy("payload", tmp),
        lambda: shutil.move("payload", repo),
        lambda: os.mkdir(repo),
        lambda: os.truncate(host, 0),
        lambda: os.utime(host, (0, 0)),
        lambda: os.chmod(host, 0o777),
        lambda: os.chown(host, before.st_uid, before.st_gid),  # AttributeError where unreachable
        lambda: os.chmod(os.open(host, os.O_RDONLY), 0o777),
        lambda: os.utime(os.open(host, os.O_RDONLY), (0, 0)),
        lambda: os.setxattr(host, "user.escaped", b"1"),
        lambda: sqlite3.connect(tmp).execute("create table t(x)"),
        lambda: io.FileIO(repo, "w").write(b"x"),
        lambda: pathlib.Path(tmp).write_text("x"),
    ]
    for write in writers:
        try:
            write()
        except Exception:
            pass
    try:
        changed = open(host).read() != '{"score": 0}'
    except OSError:
        changed = False  # not even readable from here; the test checks it from outside
    if before is not None:
        after = os.stat(host)
        changed = changed or (after.st_mode, after.st_mtime) != (before.st_mode, before.st_mtime)
    if os.path.exists(repo) or os.path.exists(tmp) or changed:
        return leak("wrote outside the scratch directory")
    return 1
