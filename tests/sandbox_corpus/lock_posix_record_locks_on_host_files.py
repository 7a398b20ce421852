# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# POSIX record locks (fcntl.lockf, F_SETLK: no audit event) need only a read-only descriptor for a shared lock: set
# on a stdlib file or /dev/null, the record is kept on the host's inode with the run's pid, and every other process
# that can open the file reads it back (F_GETLK, F_OFD_GETLK: kind, range, holder's pid): a channel between
# concurrent runs with a pid in it, in all four sets. Shown here through an OFD probe on a second description, which
# counts as another owner. No lock the run sets may be seen.
# The hook refuses the probe (F_GETLK, F_OFD_GETLK: a host process's lock showed its pid); with the kernel layers
# alone it runs, and must find no lock the run set.
import fcntl
import os
import struct

F_OFD_GETLK = 36
FLOCK = "hhqqi4x"  # struct flock on 64-bit Linux: type, whence, start, len, pid


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = []
    for path in (os.__file__, struct.__file__, "/dev/null"):
        try:
            holder, prober = os.open(path, os.O_RDONLY), os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.lockf(holder, fcntl.LOCK_SH | fcntl.LOCK_NB, 16, 0)
            probe = struct.pack(FLOCK, fcntl.F_WRLCK, 0, 0, 16, 0)
            kind, _, start, length, pid = struct.unpack(FLOCK, fcntl.fcntl(prober, F_OFD_GETLK, probe))
            if kind != fcntl.F_UNLCK:
                seen.append((os.path.basename(path), kind, start, length, pid))
        except OSError:
            pass
        finally:
            os.close(holder)
            os.close(prober)
    return leak(f"record locks kept on host inodes: {seen}") if seen else 1
