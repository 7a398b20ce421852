# expect: ok
# value: 1
# needs: proc-hidden
# ruff: noqa: SIM105, SIM115
# The host's channels carry the machine's inode counter at the spawn (channel_inodes_of_the_machine_through_fstat),
# and the kernel names it by path too: a descriptor's /proc/self/fd link reads `pipe:[12345]` or `socket:[12346]`
# (os.readlink, no audit event, no Landlock right), and os.stat through the link (or /dev/fd, /dev/stdin) answers
# the pipe's own identity. Where the run has a /proc of the host's (no mount namespace) that is a known limit; with
# the minimal root no such path exists.
import os
import re


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    paths = [f"{folder}/{fd}" for folder in ("/proc/self/fd", "/proc/thread-self/fd", "/dev/fd") for fd in range(5)]
    paths += ["/dev/stdin", "/dev/stdout", "/dev/stderr"]
    for path in paths:
        try:
            link = os.readlink(path)
            if re.fullmatch(r"(pipe|socket):\[\d+\]", link):
                seen[path] = link
        except OSError:
            pass
        try:
            seen[path + " stat"] = os.stat(path).st_ino
        except OSError:
            pass
    return leak(f"the machine's inode counter through descriptor links: {seen}") if seen else 1
