# expect: ok
# expect-kernel: ok
# value: 1
# limits: wall_seconds=6
# ruff: noqa: SIM105, SIM115
# Disk bandwidth, which no limit counts: O_DIRECT reads a readable host file (the stdlib's) from the disk itself
# every time (230 MiB/s, for the whole wall clock), and a scratch on the host's disk (no tmpfs) takes direct or
# synchronous writes at once (1.8 GiB/s rewriting one 1 MiB file with O_DIRECT) however small the scratch cap is.
# The kernel counts the bytes a process sends to storage (ru_oublock, 512-byte blocks): rewriting one MiB 32 times
# must cost one MiB at most, and no direct or synchronous route may open. Must: O_DIRECT and O_DSYNC opens refused,
# openat2 unknown, RWF_DSYNC refused, fsync and its kind done without running. getrusage is refused in the run now
# (host_memory_through_the_inherited_peak_rss): the host measures the bytes from its side
# (test_sandbox_host_process.py), and this snippet where the count still answers.
import fcntl
import mmap
import os
import resource

MIB = 2**20
ROUNDS = 32


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what)
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what


def written_mib():
    try:
        return resource.getrusage(resource.RUSAGE_SELF).ru_oublock * 512 / MIB
    except OSError:
        return 0.0


def check(**p):
    buf = mmap.mmap(-1, MIB)  # page-aligned, as O_DIRECT wants
    got = []
    for path, flags in ((os.__file__, os.O_RDONLY | os.O_DIRECT), ("direct.bin", os.O_RDWR | os.O_CREAT | os.O_DIRECT),
                        ("dsync.bin", os.O_RDWR | os.O_CREAT | os.O_DSYNC),
                        ("sync.bin", os.O_RDWR | os.O_CREAT | os.O_SYNC)):
        try:
            os.close(os.open(path, flags, 0o600))
            got.append(f"opened {os.path.basename(path)} with {flags:#o}")
        except OSError:
            pass
    fd = os.open("plain.bin", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, os.O_DIRECT)
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT:
            got.append("F_SETFL O_DIRECT")
    except OSError:
        pass
    before = written_mib()
    for _ in range(ROUNDS):
        os.pwrite(fd, buf, 0)
        os.fsync(fd)
        os.fdatasync(fd)
    for flag in (os.RWF_DSYNC, os.RWF_SYNC):
        try:
            os.pwritev(fd, [buf], 0, flag)
            got.append(f"pwritev2 flag {flag}")
        except OSError:
            pass
    os.close(fd)
    spent = written_mib() - before
    if spent > 4:
        got.append(f"{spent:.0f} MiB sent to the disk for {ROUNDS} rewrites of one MiB")
    return leak("; ".join(got)) if got else 1
