# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# flock needs no write access: an exclusive lock on a read-only descriptor of a stdlib file, a zoneinfo file or
# /dev/null is kept on the host's inode, where every other process that can open the file sees it (LOCK_NB fails
# with EWOULDBLOCK): a channel between concurrent runs (one bit per file per moment, thousands of stdlib files) and
# a wait for any host process that locks the same file. Shown here from a second open description of the same
# file, which flock treats as another owner; in all four sets. Locks must stay the run's own.
import fcntl
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = []
    for path in (os.__file__, fcntl.__file__, "/usr/share/zoneinfo/UTC", "/dev/null"):
        try:
            holder, prober = os.open(path, os.O_RDONLY), os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
            try:
                fcntl.flock(prober, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                seen.append(path)
        except OSError:
            pass
        finally:
            os.close(holder)
            os.close(prober)
    return leak(f"another holder's flock seen on {seen}") if seen else 1
