# expect: ok
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Probe descriptors 0-255: only stdin (a pipe no one writes: it was the host's /dev/null,
# dev_node_times_through_the_inherited_stdin), stdout/stderr (another pipe) and the result channel (a socket that only
# sends) may be open, and none of them may lead back to a host file or a directory (where fstat answers for them at
# all: their inode numbers are the machine's counter, channel_inodes_of_the_machine_through_fstat).
import fcntl
import os
import stat


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    found = {}
    for fd in range(256):
        try:
            fcntl.fcntl(fd, fcntl.F_GETFD)
        except OSError:
            continue
        try:
            found[fd] = os.fstat(fd)
        except OSError:
            found[fd] = None
    if sorted(found) != [0, 1, 2, 3]:
        return leak(f"unexpected descriptors {sorted(found)}")
    if all(found.values()):
        kinds = (stat.S_ISFIFO(found[0].st_mode), stat.S_ISFIFO(found[1].st_mode), stat.S_ISFIFO(found[2].st_mode),
                 stat.S_ISSOCK(found[3].st_mode), found[0].st_ino != found[1].st_ino)
        if not all(kinds):
            return leak("a descriptor is not what it should be")
    elif any(found.values()):
        return leak("some of the host's channels answer fstat, others do not")
    try:
        data = os.read(0, 1)  # nothing writes stdin: EOF at once
    except OSError:
        data = b""
    if data:
        return leak(f"read {data!r} from stdin")
    for fd in (1, 2, 3):
        try:
            data = os.read(fd, 1)  # the channel's socket end is shut for reading: EOF at once
        except OSError:
            continue
        if data:
            return leak(f"read {data!r} from write-only descriptor {fd}")
    return 1
