# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The host's channels (standard streams, the result socket) carry the machine's inode counter at the spawn
# (channel_inodes_of_the_machine_through_fstat); a copy of one is the same file under a number the code chose: os.dup,
# os.dup2 to a free number, fcntl's F_DUPFD and F_DUPFD_CLOEXEC (no audit event), then os.fstat of the copy. None may
# answer a host channel's identity, whatever number it sits on.
import fcntl
import os
import stat


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    copies = {
        "dup": lambda fd: os.dup(fd),
        "dup2": lambda fd: os.dup2(fd, 40 + fd),
        "F_DUPFD": lambda fd: fcntl.fcntl(fd, fcntl.F_DUPFD, 50),
        "F_DUPFD_CLOEXEC": lambda fd: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 55),
    }
    seen = {}
    for name, copy in copies.items():
        for fd in range(4):
            try:
                new = copy(fd)
            except OSError:
                continue
            try:
                st = os.fstat(new)
                if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
                    seen[f"{name}({fd})"] = st.st_ino
            except OSError:
                pass
            finally:
                os.close(new)
    return leak(f"the machine's inode counter through copies of the host's channels: {seen}") if seen else 1
