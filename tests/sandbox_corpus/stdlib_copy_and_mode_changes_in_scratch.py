# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `shutil.copy` copies the mode (chmod), `shutil.copy2` and `copystat` the times
# (utime), `pathlib.Path.chmod` and `os.utime` of a scratch file: refused by seccomp (EPERM) wherever the run keeps the
# host's uid, where the filter cannot tell a scratch file from a host one, and answered where a per-run uid owns the
# scratch. Every set must let them return (a host file's mode and times stay the host's whatever they answer).
import os
import pathlib
import shutil


def check(**p):
    with open("source.txt", "w") as out:
        out.write("data")
    shutil.copy("source.txt", "copy.txt")
    shutil.copy2("source.txt", "copy2.txt")
    os.makedirs("tree/inner")
    shutil.copytree("tree", "tree-copy")
    pathlib.Path("copy.txt").chmod(0o600)
    os.utime("copy2.txt")
    found = (pathlib.Path("copy.txt").read_text(), pathlib.Path("copy2.txt").read_text(), os.path.isdir("tree-copy/inner"))
    return 1 if found == ("data", "data", True) else repr(found)
