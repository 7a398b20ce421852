# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Bring a host file into scratch instead of opening it where it is: a hard link (os.link, by dir fd too), a rename
# or replace of the host's file, and shutil.move; then read it from scratch.
import os
import shutil


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    moves = [
        lambda: os.link(p["secret_file"], "linked"),
        lambda: os.link(p["world_file"], "linked"),
        lambda: os.rename(p["host_file"], "linked"),
        lambda: os.replace(p["world_file"], "linked"),
        lambda: shutil.move(p["secret_file"], "linked"),
    ]
    for move in moves:
        try:
            move()
        except Exception:
            continue
        try:
            with open("linked") as fh:
                return leak("host file brought into scratch: " + fh.read())
        except Exception:
            return leak("host file moved into scratch")
    return 1
