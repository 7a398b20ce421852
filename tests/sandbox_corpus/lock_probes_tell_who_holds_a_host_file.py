# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# A lock probe needs no lock of its own: F_GETLK and F_OFD_GETLK (fcntl, no audit event for these commands) answer
# whether any other owner holds a lock on a byte range of a file the code can read, what kind, and for POSIX locks
# the holder's pid: a stdlib file locked by a concurrent run (an OFD read lock needs only a read-only descriptor) or
# by a host process, in all four sets. Shown here with an OFD lock on a second description of the same file. No
# probe may report another owner's lock.
# The hook refuses the probe (F_GETLK, F_OFD_GETLK: a host process's lock showed its pid); with the kernel layers
# alone it runs, and must find no lock the run set.
import fcntl
import os
import struct

F_OFD_GETLK, F_OFD_SETLK = 36, 37
FLOCK = "hhqqi4x"  # struct flock on 64-bit Linux: type, whence, start, len, pid


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    holder, prober = os.open(os.__file__, os.O_RDONLY), os.open(os.__file__, os.O_RDONLY)
    try:
        try:
            fcntl.fcntl(holder, F_OFD_SETLK, struct.pack(FLOCK, fcntl.F_RDLCK, 0, 0, 1, 0))
        except OSError:
            return 1
        seen = []
        for command in (F_OFD_GETLK, fcntl.F_GETLK):
            probe = struct.pack(FLOCK, fcntl.F_WRLCK, 0, 0, 1, 0)
            try:
                kind, _, _, _, pid = struct.unpack(FLOCK, fcntl.fcntl(prober, command, probe))
            except OSError:
                continue
            if kind == fcntl.F_RDLCK:  # the kernel wrote another owner's lock there
                seen.append((command, pid))
        return leak(f"other owners' locks seen: {seen}") if seen else 1
    finally:
        os.close(holder)
        os.close(prober)
