# expect: forbidden
# expect-kernel: ok
# value: 1
# F_SETLEASE on a host file the code may read and owns (a child that keeps the host's uid owns the stdlib's files):
# any host process that then opens the file for writing or truncates it waits up to the lease-break time (45 s) on
# the code's say. Must fail: the filter refuses the command (with a per-run uid the code owns nothing: EACCES),
# and the hook refuses it.
import fcntl
import os

F_SETLEASE = 1024


def check(**p):
    fd = os.open(os.__file__, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK)
        return "SANDBOX-ESCAPED F_SETLEASE holds a lease on a stdlib file"
    except OSError:
        return 1
    finally:
        os.close(fd)
