"""Kernel confinement of the sandbox child, unprivileged half: no_new_privs, Landlock and a seccomp filter.

These are the layers that carry the sandbox's guarantees: Landlock decides which files the code may read
(scratch, the standard library, a few system files) and write (scratch only), whatever path tricks it plays;
seccomp removes the syscalls that could reach other processes, the network, mounts or the cwd. Neither needs
privileges, so they hold on hosts that forbid namespaces too. Compiled by the host into the run's boot.bin and
executed by `_child.py` (standard library only, never the `coworkenv` package) before any untrusted code runs;
every function returns why its layer is missing, or None.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import os
import struct
import sys
from _operator import index as _index  # operator.index itself; `operator`'s own file cost 0.3 ms a call

TYPE_CHECKING = False
if TYPE_CHECKING:  # collections.abc costs the child 2 ms of CPU a call to import; annotations are never evaluated
    from collections.abc import Sequence
    from typing import Any

PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1
SIGKILL = 9
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
CLONE_THREAD = 0x00010000
# A thread started with CLONE_PIDFD (Linux 6.9+) comes with a pidfd, which pidfd_open (refused) would have handed out:
# its pidfs inode number is one counter of the machine's that every process and thread it starts moves (417241, then
# 417244 in the next run, a pid namespace notwithstanding), PIDFD_GET_INFO answers the thread's parent (the host's pid
# where no pid namespace is made, where getppid answers 0) and the *_NAMESPACE ioctls hand out namespace descriptors.
# EINVAL, as a kernel before 6.9 answers CLONE_PIDFD with CLONE_THREAD (glibc's threads never ask for one).
CLONE_PIDFD = 0x00001000

# Landlock (same syscall numbers on x86_64 and aarch64).
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REMOVE_DIR, FS_REMOVE_FILE, FS_MAKE_CHAR, FS_MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
FS_MAKE_REG, FS_MAKE_SOCK, FS_MAKE_FIFO, FS_MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
FS_MAKE_SYM, FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 12, 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
# Landlock ABI 7 (Linux 6.15) writes an audit record for every access it denies, by default: where audit is on (auditd,
# audit=1) a loop of refused opens fills the host's audit log (100000 a second, on its disk) or its backlog, which a
# hardened host's failure mode turns into a panic. The code never execs, so this flag silences all of its records.
RESTRICT_SELF_LOG_SAME_EXEC_OFF = 1 << 0
# Rights the scratch directory grants: no symlinks, device nodes, sockets, fifos or execution.
SCRATCH_RIGHTS = (FS_WRITE_FILE | FS_READ_FILE | FS_READ_DIR | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_DIR
                  | FS_MAKE_REG | FS_REFER | FS_TRUNCATE)

# Syscall numbers per architecture: (audit arch, denied, signal-to-self-only, clone, clone3).
_X86_64_DENIED = (
    41, 53, 57, 58, 59, 322,  # socket, socketpair, fork, vfork, execve, execveat
    # Socket calls on a socket the child holds: the only one is the result channel, written with write(). It lives in
    # the host's network namespace, where bind took an abstract name; MSG_OOB, SCM_RIGHTS and socket filters reach
    # AF_UNIX code that sandbox escapes went through. connect, accept, send*, recv*, bind, listen, setsockopt, accept4.
    42, 43, 44, 45, 46, 47, 49, 50, 54, 288, 299, 307,
    101, 310, 311,  # ptrace, process_vm_readv, process_vm_writev
    165, 166, 272, 308, 155, 161,  # mount, umount2, unshare, setns, pivot_root, chroot
    428, 429, 430, 431, 432, 433, 442, 467,  # new mount API (open_tree_attr: Linux 6.15)
    424, 434, 438,  # pidfd_send_signal, pidfd_open, pidfd_getfd
    321, 298, 250, 248, 249, 323,  # bpf, perf_event_open, keyctl, add_key, request_key, userfaultfd
    425, 426, 427,  # io_uring
    246, 320, 175, 313, 176, 169, 167, 168, 163,  # kexec, modules, reboot, swap, acct
    133, 259, 172, 173,  # mknod, mknodat, iopl, ioperm
    80, 81, 86, 88, 265, 266,  # chdir, fchdir, link, symlink, linkat, symlinkat: paths stay what the hook saw
    303, 304,  # name_to_handle_at, open_by_handle_at: opening by inode handle skips path checks
    164, 227, 159, 305, 170, 171, 103, 153, 179, 443,  # clocks, host and domain name, syslog, vhangup, quotactl(_fd)
    141, 142, 144, 203, 251, 314,  # setpriority, sched_set*, ioprio_set: no reaching other processes
    256, 279, 312, 440, 448,  # migrate_pages, move_pages, kcmp, process_madvise, process_mrelease
    # SysV IPC and POSIX message queues: objects that outlive the run, where a later run (or the host) finds them.
    29, 30, 31, 64, 65, 66, 67, 68, 69, 70, 71, 220, 240, 241, 242, 243, 244, 245,
    253, 254, 294, 300, 301, 457, 458,  # inotify, fanotify, statmount, listmount: watching or listing host paths
    274,  # get_robust_list: another process's futex list (an address leak)
    # Calls that look a pid up before any permission check, so their errors tell which pids exist: setpgid answered
    # EINVAL for a thread of another process and ESRCH otherwise (os.setpgid, no audit event; the child leads its own
    # session, so it could change nothing), capget a process's capabilities or ESRCH (the pid in a struct BPF cannot
    # read). Nothing needs them after the bootstrap's own capability drop.
    109, 125, 126,  # setpgid, capget, capset
    154, 134, 156, 212, 136, 139,  # modify_ldt, uselib, _sysctl, lookup_dcookie, ustat, sysfs: legacy, as Docker denies
    319, 447,  # memfd_create, memfd_secret: file memory outside RLIMIT_AS and the scratch caps (64 of 1 MiB each)
    162, 306,  # sync, syncfs: the host's writeback in kernel threads, the child stuck uninterruptibly meanwhile
    # Linux AIO: io_setup draws its events from one pool for the whole machine (fs.aio-max-nr), which one run drained.
    206, 207, 208, 209, 210, 333,  # io_setup, io_destroy, io_getevents, io_submit, io_cancel, io_pgetevents
    # Pipes take their inode numbers from one counter of the machine's (get_next_ino, per CPU in batches of 1024):
    # a run that made 2100 pipes read it (its batch used up, the next starts where the machine stands) before and
    # after a second, and saw 2166 there alone, 38077 while the host made 50000 pipes (os.pipe, no audit event): the
    # activity of the host and of concurrent runs, and a channel from a run making pipes to one reading them. No
    # check needs a pipe (subprocess and multiprocessing are refused, asyncio's self-pipe is a refused socketpair);
    # sockets, memfds and the other inode makers are refused already.
    22, 293,  # pipe, pipe2
)
_AARCH64_DENIED = (
    198, 199, 221, 281,  # socket, socketpair, execve, execveat
    200, 201, 202, 203, 206, 207, 208, 211, 212, 242, 243, 269,  # calls on the result channel's socket (as x86_64)
    117, 270, 271,  # ptrace, process_vm_readv, process_vm_writev
    40, 39, 97, 268, 41, 51,  # mount, umount2, unshare, setns, pivot_root, chroot
    428, 429, 430, 431, 432, 433, 442, 467,  # new mount API (open_tree_attr: Linux 6.15)
    424, 434, 438,  # pidfd_send_signal, pidfd_open, pidfd_getfd
    280, 241, 219, 217, 218, 282,  # bpf, perf_event_open, keyctl, add_key, request_key, userfaultfd
    425, 426, 427,  # io_uring
    104, 294, 105, 273, 106, 142, 224, 225, 89,  # kexec, modules, reboot, swap, acct
    33,  # mknodat
    49, 50, 37, 36,  # chdir, fchdir, linkat, symlinkat
    264, 265,  # name_to_handle_at, open_by_handle_at
    170, 112, 171, 266, 161, 162, 116, 58, 60, 443,  # clocks, host and domain name, syslog, vhangup, quotactl(_fd)
    140, 118, 119, 122, 30, 274,  # setpriority, sched_set*, ioprio_set
    238, 239, 272, 440, 448,  # migrate_pages, move_pages, kcmp, process_madvise, process_mrelease
    180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197,  # mq_*, SysV IPC
    26, 27, 262, 263, 457, 458,  # inotify, fanotify, statmount, listmount
    100, 18,  # get_robust_list, lookup_dcookie
    154, 90, 91,  # setpgid, capget, capset: pid oracles (as x86_64)
    279, 447,  # memfd_create, memfd_secret
    81, 267,  # sync, syncfs
    0, 1, 2, 3, 4, 292,  # io_setup, io_destroy, io_submit, io_cancel, io_getevents, io_pgetevents: Linux AIO
    59,  # pipe2: the machine's inode counter (as x86_64)
)
# File metadata changes (Landlock does not cover them): chmod, chown, utime and xattr families, by path or fd.
_X86_64_METADATA = (90, 91, 268, 452, 92, 93, 94, 260, 132, 235, 261, 280, 188, 189, 190, 197, 198, 199, 463, 466,
                    469)  # file_setattr (Linux 6.17): inode flags by path
_AARCH64_METADATA = (52, 53, 452, 54, 55, 88, 5, 6, 7, 14, 15, 16, 463, 466, 469)
# Of those, the mode and time changes (chmod, fchmod, fchmodat, fchmodat2; utime, utimes, futimesat, utimensat):
# answered 0 without running instead of EPERM. Harmless calls make them on the scratch's own files (`shutil.copy`
# copies the mode, `copy2` and extractions the times): refused, they failed only where the run keeps the host's uid,
# and seccomp cannot tell a scratch file from a host one. Ownership and extended attributes stay refused.
_MODE_AND_TIME_CHANGES = {"x86_64": (90, 91, 268, 452, 132, 235, 261, 280), "aarch64": (52, 53, 452, 88)}
# Extended attributes read by path (getxattr, lgetxattr, listxattr, llistxattr, getxattrat, listxattrat): host file
# data Landlock does not cover. ENOTSUP, which shutil's copies take for "no attributes here".
_X86_64_XATTR_READS = (191, 192, 194, 195, 464, 465)
_AARCH64_XATTR_READS = (8, 9, 11, 12, 464, 465)


class _Arch:
    """One architecture's syscall numbers (a plain class: typing is too slow to import on every call)."""

    def __init__(self, audit_arch: int, denied: tuple[int, ...], metadata: tuple[int, ...],
                 xattr_reads: tuple[int, ...], self_only: tuple[int, ...], prlimit: int, fcntl: int, ioctl: int,
                 clone: int, clone3: int, disk: _DiskIo, prctl: int) -> None:
        self.audit_arch, self.denied, self.metadata, self.xattr_reads = audit_arch, denied, metadata, xattr_reads
        self.prctl = prctl  # PR_SET_PDEATHSIG and PR_SET_DUMPABLE refused: the bootstrap's to set
        self.self_only = self_only  # kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo: the child itself only
        self.prlimit = prlimit  # prlimit64: on the child itself only (pid 0 or its own)
        self.fcntl, self.ioctl, self.clone, self.clone3, self.disk = fcntl, ioctl, clone, clone3, disk


class _DiskIo:
    """One architecture's syscalls that make the disk work for the code beyond what its limits count: opens (number,
    index of the flags argument) and the O_DIRECT bit, the syscalls answered as done without running them
    (fsync, fdatasync, sync_file_range, msync, fadvise64), madvise and pwritev2."""

    def __init__(self, opens: tuple[tuple[int, int], ...], o_direct: int, done: tuple[int, ...], madvise: int,
                 pwritev2: int) -> None:
        self.opens, self.o_direct, self.done, self.madvise, self.pwritev2 = opens, o_direct, done, madvise, pwritev2


_ARCHES = {
    "x86_64": _Arch(0xC000003E, _X86_64_DENIED, _X86_64_METADATA, _X86_64_XATTR_READS, (62, 200, 234, 129, 297),
                    302, 72, 16, 56, 435, _DiskIo(((2, 1), (257, 2)), 0o40000, (74, 75, 277, 26, 221), 28, 328), 157),
    "aarch64": _Arch(0xC00000B7, _AARCH64_DENIED, _AARCH64_METADATA, _AARCH64_XATTR_READS, (129, 130, 131, 138, 240),
                     261, 25, 29, 220, 435, _DiskIo(((56, 2),), 0o200000, (82, 83, 84, 227, 223), 233, 287), 167),
}
# Disk bandwidth no limit counts: O_DIRECT reads every readable host file from the disk itself, again and again (230
# MiB/s for the whole wall clock), and writes in a scratch on the host's disk (no tmpfs) reach it at once (1.8 GiB/s
# rewriting one 1 MiB file), as do synchronous writes (O_DSYNC, O_SYNC, RWF_DSYNC, RWF_SYNC, fsync and the like);
# evicting host files' cached pages (fadvise, MADV_COLD/MADV_PAGEOUT) makes the next reads go to the disk. Opens with
# O_DIRECT or O_DSYNC (O_SYNC holds it) get EINVAL, as on a file system without them; openat2 (its flags lie in a
# struct BPF cannot read) ENOSYS; the sync and advice calls succeed without running: scratch outlives no run, so
# nothing is lost, and advice may always be ignored.
O_DSYNC = 0o10000
F_SETFL = 4
SYS_OPENAT2 = 437  # the same on x86_64 and aarch64
RWF_SYNCS = 0x2 | 0x4  # RWF_DSYNC, RWF_SYNC
MADV_COLD, MADV_PAGEOUT = 20, 21
# fcntl commands that make another process the owner of a descriptor's SIGIO, so that the kernel signals it on
# the code's behalf: F_SETOWN, F_SETSIG, F_SETOWN_EX.
_SIGNAL_OWNER_FCNTLS = (8, 10, 15)
# fcntl commands refused for another reason: F_SETPIPE_SZ grows a pipe's kernel buffer to 1 MiB, memory that
# RLIMIT_AS does not count (64 descriptors held 30 MiB that way; 2 MiB at the default 64 KiB a pipe); F_NOTIFY
# (dnotify) watches a readable host folder, as inotify would; F_SETLEASE on a host file the code owns (the
# stdlib's, where it keeps the host's uid) holds every host writer of that file for the lease-break time.
# F_GET_RW_HINT, F_SET_RW_HINT, F_GET_FILE_RW_HINT, F_SET_FILE_RW_HINT: a write-lifetime hint is kept on the host
# file's inode after the run (set on a stdlib file or /dev/null where the code keeps the host's uid, read back by any
# later run: a channel between runs through host files). No check needs one.
_WRITE_HINT_FCNTLS = (1035, 1036, 1037, 1038)
_REFUSED_FCNTLS = (*_SIGNAL_OWNER_FCNTLS, 1031, 1026, 1024, *_WRITE_HINT_FCNTLS)
# Page-cache oracles: whether a page of a readable host file is cached tells what the host (or another run) has been
# reading, which modules it imported. A read with RWF_NOWAIT (EAGAIN unless cached) answers it for every readable file
# without caching anything, as do mincore on a mapping and cachestat: again and again, where timing an ordinary read
# caches the page it measures. preadv2 with RWF_NOWAIT gets EOPNOTSUPP (as on a file system without it); mincore and
# cachestat EPERM. Per architecture: (preadv2, (mincore, cachestat)).
RWF_NOWAIT = 0x8
_PAGE_CACHE_PROBES = {"x86_64": (327, (27, 451)), "aarch64": (286, (232, 451))}
# sysinfo answers what the empty /proc and Landlock keep from /proc/loadavg and /proc/meminfo: the machine's load
# averages, total and free memory, swap and process count (os.getloadavg and os.sysconf go through it, no audit
# event), a live view of what the host and other runs do. ENOSYS, as where there is no such call: getloadavg fails.
_SYSINFO = {"x86_64": 99, "aarch64": 179}
# fallocate with a mode (FALLOC_FL_KEEP_SIZE, and ZERO_RANGE or PUNCH_HOLE with it) allocates disk blocks and leaves
# the file's size alone, so RLIMIT_FSIZE never looks: with native code, one call put 4 GiB on the host's disk under a
# 1 MiB file size limit and a 16 MiB scratch (no tmpfs caps a scratch there; the host's watch looks every 0.1 s), the
# whole free space in one go. EOPNOTSUPP, as on a file system without them; mode 0 (posix_fallocate), which grows the
# size and which the file size limit checks, runs. Per architecture: fallocate (the mode in argument 1).
_FALLOCATE = {"x86_64": 285, "aarch64": 47}
# statfs and fstatfs answer for the file system under any path or descriptor the code can name, whatever Landlock
# says (it does not cover them): the host disk's size, its free blocks and inodes (which change as the host and
# other runs write: a live view of their activity) under the stdlib, and the host's memory size under /dev (devtmpfs
# is sized from it). ENOSYS, as on a kernel without them: os.statvfs, os.fstatvfs and shutil.disk_usage raise.
# times() answers the clock ticks since boot (os.times().elapsed: the uptime the time namespace hides from the
# clocks, which it does not shift). Where the architecture has a SIGSYS answer (below) it is trapped and answered
# zeros; elsewhere it returns 0 without running, leaving the CPU figures unset (os.times is the only caller, and
# time.process_time gives them). Per architecture: ((statfs, fstatfs), times).
_HOST_STATISTICS = {"x86_64": ((137, 138), 100), "aarch64": ((43, 44), 153)}
# Calls refused by answering them: a refused times() or sysinfo() (returning 0 or an error without running) left its
# result buffer as the C stack held it, and glibc reads it unchecked (os.times()'s four CPU figures,
# os.sysconf("SC_PHYS_PAGES") and "SC_AVPHYS_PAGES", qsort's memory bound): stack and library addresses of the
# child's own, random with ASLR, a value no two runs shared. seccomp cannot fill a buffer, so the filter traps them
# (SECCOMP_RET_TRAP: the call does not run) and a SIGSYS handler of fixed machine code (no Python, no callback the
# code could reach; source in native/) answers in the registers the kernel hands back: times() fills zeros and
# returns 0 (elapsed 0.0, as before), sysinfo() copies a template into the buffer and still fails with ENOSYS
# (os.getloadavg raises as before): no uptime, loads or processes, total and free memory the run's own memory limit
# (`SC_PHYS_PAGES` = the limit in pages). A SIGSYS that is no trap (sent by kill) is left alone. Its page is
# read-and-execute; the filter
# refuses rt_sigaction setting SIGSYS's action (a handler of the code's would get the buffers back unfilled), and a
# SIGSYS the code blocks kills it (the kernel forces the default action), never a leftover. Per architecture: the
# code, whose 112-byte sysinfo template follows it; aarch64 has none yet (its calls keep the answers above).
#
# The run's own file systems (the minimal root, the covers of hidden folders, /dev, the scratch, the covers of the
# kernel's views) are tmpfs mounts made for the run, and every new superblock takes the lowest free number of the
# machine's one table of anonymous devices (get_anon_bdev; no namespace has its own): their st_dev (os.stat of "/",
# "/dev", "."; no audit event) read 0:40-0:43 for a run alone and 0:52-0:55 beside one concurrent run, a live count
# of the in-memory file systems mounted on the whole machine. The stat family is trapped too (where the handler is
# there) and made by the handler itself, from the one `syscall` instruction the filter lets it run from: a call that
# succeeds has its st_dev rewritten by a table after the sysinfo template, each real number the run's mounts took
# (`_kernel.FRESH_DEVICES`, in the order they were made) shown as 0:SHOWN_DEVICE_MINOR + its index (the top of the
# anonymous range, which no machine reaches: distinct mounts stay apart, os.path.ismount still works). Native code
# may jump to that instruction itself, but the rewrite follows it before control returns; only a signal handler of
# its own landing between the two sees a real number (a known limit, with the hook off). A file on any device the
# table does not name (the host's, bound read-only: the stdlib, its byte code, zoneinfo, the libraries) shows its
# modification time as its access time: the kernel moves an access time on a read at most once a day (`relatime`),
# so os.stat of a stdlib .pyc told when the host, or another run, last imported it (fifty-fifth round); the run's
# own files (its mounts, and the scratch where it is none: `kept`, shown as it is) keep theirs. Per architecture: the
# stat calls by path and by descriptor (the latter are the channels' rule first).
_STAT_CALLS = {"x86_64": ((4, 6), (5, 262))}
DEVICE_SLOTS, SHOWN_DEVICE_MINOR = 16, 0xFFFF0
_CALL_ANSWERS = {"x86_64": bytes.fromhex(
    "837e08010f858a0000008b46184c8b426883f864742783f863744483f804747583f805747083f806746b3d06010000746448c78290000000"
    "daffffffc34d85c0741131c949890849894808498948104989481848c7829000000000000000c34d85c074254c8d0d9500000031c9498b04"
    "094989040883c10883f97072f048c78290000000daffffffc348c78290000000f2ffffffc34989d14189c0498b7968498b7170498b918800"
    "00004d8b51380f05498981900000004885c075d84181f806010000480f44f2488b06488d3d9f00000031c9483b040f741c83c11081f90001"
    "000072ef488b465848894648488b466048894650c3488b440f08488906c36690")}
_RT_SIGACTION = {"x86_64": 13, "aarch64": 134}
SIGSYS, SA_SIGINFO, SECCOMP_RET_TRAP = 31, 4, 0x00030000
SYSCALL_INSTRUCTION = b"\x0f\x05"  # the handler's one (a test checks it occurs once in the code)
PROT_READ, PROT_WRITE, PROT_EXEC, MAP_PRIVATE, MAP_ANONYMOUS = 1, 2, 4, 0x02, 0x20


class _SigAction(ctypes.Structure):  # glibc's struct sigaction on x86_64 and aarch64
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16), ("flags", ctypes.c_int),
                ("restorer", ctypes.c_void_p)]


def sysinfo_template(memory_bytes: int) -> bytes:
    """struct sysinfo as the trapped call answers it: uptime and loads 0, total and free memory `memory_bytes`,
    no shared, buffer, swap or high memory, one process, a memory unit of 1 byte."""
    memory = max(0, min(int(memory_bytes), 2**64 - 1))
    return struct.pack("<qQQQQQQQQQH6xQQI4x", 0, 0, 0, 0, memory, memory, 0, 0, 0, 0, 1, 0, 0, 1)


def shown_devices(devices: Sequence[int], kept: Sequence[int] = ()) -> bytes:
    """The handler's table of (real, shown) device numbers: the distinct numbers of `devices`, each shown as
    0:SHOWN_DEVICE_MINOR + its index, then those of `kept` that are not among them, shown as they are (the scratch
    where it is no mount of the run's: its files keep their access times, which the handler shows as modification
    times on every device the table does not name; in the slots `devices` leave free); the unused slots all zeros
    (no file system is 0:0). Raises ValueError for more than DEVICE_SLOTS of `devices` (a mount past the table would
    show its real number: the run must not start)."""
    real = list(dict.fromkeys(int(d) for d in devices if int(d)))
    if len(real) > DEVICE_SLOTS:
        raise ValueError(f"the run made {len(real)} file systems, more than the {DEVICE_SLOTS} the SIGSYS handler's "
                         "table of device numbers holds: raise DEVICE_SLOTS (and the handler's loop bound)")
    same = [d for d in dict.fromkeys(int(d) for d in kept if int(d)) if d not in real][:DEVICE_SLOTS - len(real)]
    pairs = [(d, os.makedev(0, SHOWN_DEVICE_MINOR + i)) for i, d in enumerate(real)] + [(d, d) for d in same]
    return b"".join(struct.pack("<QQ", *pair) for pair in pairs).ljust(16 * DEVICE_SLOTS, b"\0")


def install_call_answers(libc: ctypes.CDLL, machine: str, memory_bytes: int, devices: Sequence[int] = (),
                         kept: Sequence[int] = ()) -> int:
    """Install the SIGSYS handler that answers the trapped times() and sysinfo() and makes the trapped stat calls
    with `devices` shown at fixed numbers, the access times of files on any device but those and `kept` shown as
    their modification times (`_CALL_ANSWERS`, `shown_devices`); returns the address right after its
    `syscall` instruction (where the filter lets the stat calls run), or 0 where this architecture has no handler.
    Raises OSError where it cannot be installed (the run must not go on without it)."""
    code = _CALL_ANSWERS.get(machine)
    if code is None:
        return 0
    page = code + sysinfo_template(memory_bytes) + shown_devices(devices, kept)
    size = 4096
    mmap, mprotect, munmap = libc["mmap"], libc["mprotect"], libc["munmap"]  # function objects of their own
    mmap.restype, mmap.argtypes = ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                                                    ctypes.c_int, ctypes.c_long)
    mprotect.argtypes, munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int), (ctypes.c_void_p,
                                                                                           ctypes.c_size_t)
    address = mmap(None, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap of the SIGSYS answer's page failed")
    ctypes.memmove(address, page, len(page))
    if mprotect(address, size, PROT_READ | PROT_EXEC):
        # A host that set memory-deny-write-execute (fork and exec pass it on) refuses execute on a once-writable
        # page: the same bytes from a memory file, mapped read-and-execute from the start.
        munmap(address, size)
        fd = int(libc.memfd_create(b"sandbox-call-answers", ctypes.c_uint(1)))  # MFD_CLOEXEC
        if fd < 0:
            raise OSError(ctypes.get_errno(), "memfd_create for the SIGSYS answer's page failed")
        try:
            os.write(fd, page.ljust(size, b"\0"))
            address = mmap(None, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0)
        finally:
            os.close(fd)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap of the SIGSYS answer's page failed")
    action = _SigAction(handler=address, flags=SA_SIGINFO)
    if libc.sigaction(SIGSYS, ctypes.byref(action), None):
        raise OSError(ctypes.get_errno(), "sigaction(SIGSYS) for the trapped calls' answers failed")
    return int(address) + code.index(SYSCALL_INSTRUCTION) + len(SYSCALL_INSTRUCTION)
# mmap with MAP_HUGETLB draws reserved huge pages from the machine's pool (vm.nr_hugepages), which no memory cgroup
# here counts, up to the address-space limit: a host that reserves a few for a database would lend them to a run,
# and whether the pool answers tells what the host reserves. ENOSYS, as on a kernel without hugetlbfs (memfd and
# SysV shared memory, its other doors, are refused already). Per architecture: mmap (flags in argument 3).
_MMAP = {"x86_64": 9, "aarch64": 222}
MAP_HUGETLB = 0x40000
# Calls that ask about a process by pid (getpgid, getsid): what the empty /proc keeps from the code, which processes
# run on the machine (all its pids answered, 40000 in 0.05 s of CPU), the host's group and session. Only 0 (itself)
# or the child's own pid; any other gets EPERM, whether a process has it or not. Per architecture.
_ABOUT_A_PROCESS = {"x86_64": (121, 124), "aarch64": (155, 156)}
# Scheduling settings, asked of any process (getpriority, ioprio_get, sched_getscheduler, sched_getparam,
# sched_rr_get_interval, sched_getaffinity, sched_getattr): of another pid they told which processes run on the
# machine and how; of a user or a group (getpriority, ioprio_get) every root process's highest priority where the
# child keeps the host's uid; and of the child itself what the host chose, which fork and exec pass on (its nice
# value, I/O priority, policy, CPU set: how the host was started and pinned, how many CPUs the machine gives it). The
# run keeps those settings and may not read them: ENOSYS for any argument, as on a kernel without the calls
# (os.cpu_count() then answers glibc's guess, 2; glibc's pthread_getattr_np takes ENOSYS for "no CPU set").
_SCHEDULING_READS = {"x86_64": (140, 252, 145, 143, 148, 204, 315), "aarch64": (141, 31, 120, 121, 127, 123, 275)}
# The NUMA memory policy, which fork and exec pass on like the CPU set: get_mempolicy answered the host's (`numactl
# --preferred`/`--membind`: mode and nodes) and with MPOL_F_MEMS_ALLOWED the nodes its cpuset allows (the machine's
# topology), and set_mempolicy or mbind with a node mask answer EINVAL for a node that is not there. The run keeps
# the host's policy (its choice is honoured, as for the scheduling settings) and may neither read nor change it:
# get_mempolicy, set_mempolicy, mbind and set_mempolicy_home_node ENOSYS, as on a kernel without NUMA. Per
# architecture.
_MEMORY_POLICY = {"x86_64": (239, 238, 237, 450), "aarch64": (236, 237, 235, 450)}
# What else the kernel tells a process of the machine and of its host, beyond /proc: uname() the host kernel's
# release and build string (which no namespace covers, in every set) and, without a UTS namespace, the host's name
# (gethostname asks it too); getrusage a peak resident set that exec carried over from the host (the kernel folds
# the spawning process's peak into the new program's ru_maxrss: the host's memory size, and how it grows from run to
# run). ENOSYS, as on a kernel without them; the bootstrap gives os.uname a neutral answer (`neutral_uname`), and
# CPU time stays readable through time.process_time and thread_time. Per architecture: (uname, getrusage).
_HOST_IDENTITY = {"x86_64": (63, 98), "aarch64": (160, 165)}
# What statx and file_getattr (Linux 6.17) answer beyond the fields of stat (which glibc and Python ask through
# newfstatat): the host disk's direct-I/O alignment (its logical block size) and atomic-write units, a file's inode
# flags (`stx_attributes`, which FS_IOC_GETFLAGS, refused, answers) and those its file system supports (ext4's set
# apart from XFS's), a btrfs subvolume's id, the mount's id unique since boot (how many mounts the machine has made,
# other runs' included), and file_getattr the fsxattr of FS_IOC_FSGETXATTR (refused): project id, extent size hints.
# ENOSYS, as on a kernel before them (glibc's statx falls back to fstatat then, answering the stat fields only).
# Per architecture: (statx, file_getattr).
_FILE_FACTS = {"x86_64": (332, 468), "aarch64": (291, 468)}
# The run's parent is the host: getppid (no audit event) answered its pid in every set without a pid namespace of the
# run's own (the host makes one as root: `_pidns`), naming the host process (and, against its own pid, how many
# processes the machine started since the host did). 0 without running, as a process whose parent lies outside its
# pid namespace is told (and is, in the full set);
# the bootstrap's own check of its parent (`die_with_host`) runs before the filter. Per architecture.
_GETPPID = {"x86_64": 110, "aarch64": 173}
# Locks are kept on the host's inode, where every other process that can open the file sees them: flock takes an
# exclusive lock through a read-only descriptor (of a stdlib file, /dev/null), and POSIX and OFD locks take read locks
# there, which concurrent runs saw (flock's LOCK_NB failing, F_GETLK and F_OFD_GETLK reporting the lock: a channel
# between them, a bit per file and byte range) and host processes locking the same file waited behind. Setting a lock
# (flock; F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW) returns 0 without running: a run is one process, whose locks
# only it could contend for (sqlite and mailbox keep their in-process bookkeeping and work in scratch, WAL included),
# so no run holds a lock anywhere and a probe finds none of another run's. Per architecture: flock; the fcntl commands.
_FLOCK = {"x86_64": 73, "aarch64": 32}
_LOCK_SETTING_FCNTLS = (6, 7, 37, 38)
# Shared futexes: without FUTEX_PRIVATE_FLAG the kernel keys a futex on a file mapping by the file's inode and offset,
# so every process that maps a stdlib file met every other at the same key (with native code, the hook off: a run's
# FUTEX_WAIT slept until a concurrent run's FUTEX_WAKE, a channel between them). A run without threads has no
# process to share a futex with: futex() takes private operations only (ENOSYS otherwise, which C libraries take for
# "no such operation"). With threads (max_processes above 1) glibc waits on a thread's exit with a shared wait, which
# the kernel ends by a shared wake of the thread's clear_child_tid word; both passed there, and so did the channel:
# a run slept on a stdlib file's key until a concurrent run's FUTEX_WAKE, or the end of a thread whose clear_child_tid
# it had pointed at the mapping (the kernel's own wake, no futex call to refuse), woke it. No run may sleep on a shared
# key, so neither sender reaches one: a shared FUTEX_WAIT or FUTEX_WAIT_BITSET (any clock) returns EAGAIN at once, as
# when the word changed (glibc's join then re-reads the thread id until the kernel clears it: a spin, CPU-bounded;
# CPython's own threads are detached and joined through locks), every other shared operation ENOSYS. The futex2 calls
# (futex_waitv, futex_wake, futex_wait, futex_requeue) carry their flags in structs BPF cannot read, and no C library
# uses them: ENOSYS, as on a kernel before them. Per architecture: futex.
_FUTEX = {"x86_64": 202, "aarch64": 98}
FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME = 128, 256
_FUTEX_WAITS = (0, 9)  # FUTEX_WAIT, FUTEX_WAIT_BITSET
# Priority-inheritance futexes look up the task whose id the word holds, private ones too (the word is the code's own
# memory): FUTEX_LOCK_PI, FUTEX_TRYLOCK_PI and FUTEX_LOCK_PI2 answered ESRCH where no task had the id and EPERM where
# one did (with the hook off: which pids and threads exist on the machine, the host's among them), and attach a PI
# state to that task. No C library uses them but for PTHREAD_PRIO_INHERIT mutexes, which CPython never makes: ENOSYS
# for all six (LOCK_PI, UNLOCK_PI, TRYLOCK_PI, WAIT_REQUEUE_PI, CMP_REQUEUE_PI, LOCK_PI2), as on a kernel without them.
_FUTEX_PI = (6, 7, 8, 11, 12, 13)
_FUTEX2_CALLS = (449, 454, 455, 456)  # the same on x86_64 and aarch64
# Clock calls take CPU clocks of any process by pid (clock id ~pid << 3 | kind; clock_getcpuclockid): the host's CPU
# time, live (a view of what it does), init's (a hint of the uptime), and whether a pid exists (EINVAL or not), in
# every layer set, time.clock_gettime raising no audit event; the vDSO passes such ids to the kernel. A process
# clock answers only for 0 (itself) or the child's own pid; the kernel keeps thread clocks to the child's threads.
# EINVAL, as for a pid with no process. Per architecture: clock_gettime, clock_getres, clock_nanosleep,
# timer_create (the clock id in argument 0).
_CLOCK_CALLS = {"x86_64": (228, 229, 230, 222), "aarch64": (113, 114, 115, 107)}
CPUCLOCK_PERTHREAD = 4
# getsockopt on the result channel (the only socket the child holds) names the host on its other end: SO_PEERCRED
# (its pid, uid, gid), SO_PEERGROUPS (its supplementary groups, which the child dropped), SO_PEERSEC (its security
# label) and SO_PEERPIDFD, a pidfd of the host that pidfd_open would refuse. Only what a socket says of itself
# passes at SOL_SOCKET: SO_TYPE, SO_ERROR, SO_SNDBUF, SO_RCVBUF, SO_PROTOCOL, SO_DOMAIN; per architecture.
SOL_SOCKET = 1
_OWN_SOCKET_OPTIONS = (3, 4, 7, 8, 38, 39)
_GETSOCKOPT = {"x86_64": 55, "aarch64": 209}
# lsm_get_self_attr, lsm_set_self_attr, lsm_list_modules (Linux 6.8): the host kernel's security modules (which of
# AppArmor, SELinux, Landlock, BPF LSM, lockdown it runs) and the labels it gives; ENOSYS, as on a kernel before them.
# The same numbers on both architectures.
_SECURITY_MODULE_CALLS = (459, 460, 461)
# epoll, eventfd, timerfd, signalfd and Landlock rulesets (a seccomp listener too) are descriptors of one inode the
# kernel made at boot (anon_inode_getfile): fstat of select.epoll() or os.eventfd() (no audit event) answered its number
# (1038 here) and its times, the wall-clock moment the machine booted (77229 s before), which no time namespace shifts:
# the uptime the boot-relative clocks hide, in every set. BPF cannot tell such a descriptor from a file, so its makers
# are ENOSYS, as on a kernel built without them (select.epoll() and os.eventfd() raise OSError; asyncio's event loop
# fails already, at its self-pipe). Per architecture: epoll_create(1), eventfd(2), timerfd_create, signalfd(4),
# landlock_create_ruleset (the child's own ruleset is made before the filter); seccomp's SECCOMP_SET_MODE_FILTER
# below (a listener's descriptor is one; every filter of the code's own could log each call: _HOST_LOG_PRCTLS).
_ANON_INODE_MAKERS = {"x86_64": (213, 291, 284, 290, 283, 282, 289, 444), "aarch64": (20, 19, 85, 74, 444)}
_SECCOMP = {"x86_64": 317, "aarch64": 277}
# membarrier reaches past the run to every CPU of the machine (native code: Python has no wrapper): QUERY answers what
# the host kernel was built with (0x3ff here), GLOBAL waits for an RCU grace period of every CPU (16 ms here),
# GLOBAL_EXPEDITED interrupts every CPU running a process registered for it (the host's, another run's), and the
# registrations mark the run for other callers' interrupts. Neither glibc nor CPython calls it: ENOSYS for every
# command, as on a kernel built without it.
_MEMBARRIER = {"x86_64": 324, "aarch64": 283}
SECCOMP_SET_MODE_FILTER = 1
# prctl options that take back a process attribute the bootstrap set, with no capability needed: PR_SET_PDEATHSIG
# (cleared, the run outlives a host killed mid-call, its wall clock gone with the host), PR_SET_DUMPABLE (dumpable
# again, a crash runs a core_pattern helper as root in the host's namespaces, whatever RLIMIT_CORE says) and
# PR_SET_MEMORY_MERGE (all the run's memory offered to the kernel's same-page merging, which the bootstrap cleared:
# where ksmd runs, pages merged with other processes' tell by a write's timing what those hold). Also two options that
# look a pid up before any permission check, on kernels built with them: PR_SCHED_CORE (62, CONFIG_SCHED_CORE: its
# GET, CREATE and SHARE_* answer ESRCH for no such pid, EPERM for another's) and Yama's PR_SET_PTRACER (0x59616d61:
# EINVAL for no such pid, 0 otherwise), pid oracles as setpgid and capget were; nothing needs either (the code is
# never traced, and core scheduling is the host's to set). Not measured as an escape: the test kernel has neither.
_PID_PROBING_PRCTLS = (62, 0x59616D61)
# The speculation controls (PR_GET_SPECULATION_CTRL, PR_SET_SPECULATION_CTRL) answer, for the store bypass, indirect
# branches and L1D flushing, whether the host's CPU has the flaw, whether the kernel lets a process choose (how it was
# booted: mitigations=, spec_store_bypass_disable=, l1d_flush=) and what the host chose for itself, which fork and exec
# pass on: what /sys/devices/system/cpu/vulnerabilities says, which the empty /sys and Landlock keep out (2, 2, 8 here;
# the setter's ENXIO or EPERM say the same). Whatever the host chose stays in force, unread, as its memory policy does.
_SPECULATION_PRCTLS = (52, 53)
# PR_SET_MDWE and PR_GET_MDWE: memory-deny-write-execute, which a host may set for itself; fork and exec pass it on and
# nothing clears it, so the run read the host's choice (1 under a host that set it), and clearing it (EPERM where set)
# says the same. It stays in force, unread.
_MDWE_PRCTLS = (65, 66)
# What the host's kernel writes about the run, chosen by the code (native code, no capability needed): a seccomp filter
# of its own whose action is SECCOMP_RET_LOG (or any action but ALLOW, under SECCOMP_FILTER_FLAG_LOG) turns every call
# into an audit record (type 1326) whatever the host's audit rules: the host's kernel log (rate-limited) or, where
# auditd runs, its audit log on disk, or the backlog a hardened host panics on overflowing (the audit serial moved by
# 996 records in a run of 1000 calls here); PR_SET_SECCOMP stacks one as the seccomp syscall does (below). The name
# (comm, PR_SET_NAME: any 15 bytes but NUL, terminal controls included) is printed raw in the kernel's lines about the
# run (a fault's "<comm>[pid]: segfault", an OOM kill's) and listed by ps and top: a run named "\x1b[31msshd\x1b[0m"
# left the escapes in the kernel's log buffer and the blame on sshd. No check needs either; the interpreter's name stays.
_HOST_LOG_PRCTLS = (15, 22)  # PR_SET_NAME, PR_SET_SECCOMP
_REFUSED_PRCTLS = (1, 4, 67, *_PID_PROBING_PRCTLS, *_SPECULATION_PRCTLS, *_MDWE_PRCTLS, *_HOST_LOG_PRCTLS)
# madvise(MADV_MERGEABLE) offers one mapping to the same merging (Python's mmap.madvise, no audit event): done without
# running (advice may always be ignored).
MADV_MERGEABLE = 12
# Socket ioctls (0x8900-0x8BFF: FIOSETOWN, SIOCSPGRP, SIOCGIFCONF, SIOCGIFADDR..., wireless): they answer on any
# socket, and the result channel is one, created in the host's network namespace.
_SOCKET_IOCTLS = (0x8900, 0x8C00)
# The host's channels (standard input, output and error: pipes; the result socket and, where the code may ask, the
# answer socket) are made by the host just before the spawn, and their inode numbers come from one counter of the
# machine's (get_next_ino), which every pipe, socket and anonymous file of the host and of other runs moves: fstat of
# descriptors 0-3 (no audit event) read where the machine stood at the spawn (two runs with 5000 host pipes between
# them read 5933 apart), a gauge of the host's activity in every run; a pipe's times tell when the host last read it.
# Descriptors up to the last channel answer nothing of themselves: fstat and newfstatat with one as its folder EPERM
# (Python's FileIO takes that for "no block size": print, open(1, closefd=False) work), nor may one be copied to a
# number the code chose (dup, dup2, dup3, fcntl F_DUPFD and F_DUPFD_CLOEXEC: EPERM), nor a pipe's size be read
# (F_GETPIPE_SZ: a page where the host's uid was past its pipe-user-pages-soft when it made them). Nor is one's number
# ever freed, which the next file opened would take (the dynamic loader fstats each library it maps: after
# os.close(0) no extension module imported): close of a channel returns 0 without running (open(1, "w") closes fd 1
# when done with it), close_range from one ENOSYS (Python and glibc then close one by one, as on kernels before it).
# A file of the code's may still be put over a channel (dup2 onto it): the number stays taken. Per architecture:
# (fstat, newfstatat), (dup, dup2, dup3) (aarch64 has no dup2 of its own: glibc asks dup3), close, close_range.
_CHANNEL_IDENTITY = {"x86_64": ((5, 262), (32, 33, 292)), "aarch64": ((80, 79), (23, 24))}
_CHANNEL_CLOSE = {"x86_64": (3, 436), "aarch64": (57, 436)}
_CHANNEL_FCNTLS = (0, 1030, 1032)  # F_DUPFD, F_DUPFD_CLOEXEC, F_GETPIPE_SZ
# A channel's queues are drained as the host gets the CPU: FIONREAD (SIOCINQ) read the bytes still waiting in fd 1 or
# the result socket, TIOCOUTQ (SIOCOUTQ) those the host had not read, so a loop timing the drain gauged the machine's
# load (95th percentile 32-38 us alone, 1173-2083 us beside two busy processes) in every set. On a channel only the
# ioctls that set the code's own descriptor flags run (FIONBIO, which Python's sockets use for timeouts; FIONCLEX and
# FIOCLEX, os.set_inheritable's); every other answers ENOTTY, as a pipe does to a terminal's (isatty is False).
_CHANNEL_OWN_FLAG_IOCTLS = (0x5421, 0x5450, 0x5451)
# The ioctls that make a pty usable (TIOCSPTLCK unlocks the follower, TIOCGPTN names it, TIOCGPTPEER opens it):
# os.openpty opens /dev/ptmx in the C library, unseen by the hook, so where Landlock and the minimal root are missing
# it opened a pty of the host's devpts (a pool of the machine's) whose descriptors reach the tty layer (line
# disciplines, TIOCSTI). Refused, the C library's openpty fails and closes what it opened. The same on both arches.
_PTY_IOCTLS = (0x40045431, 0x80045430, 0x5441)
# ioctl families (the type byte, bits 8-15 of the command) that change files: 'f' inode flags, fs-verity (which seals
# a file for good), encryption policies and ext4's own; 'X' fsxattr flags and XFS's; 'v' inode versions; 0x94 btrfs
# (subvolumes made inside a folder) and clones. The kernel asks only that the caller own the file or folder, even
# through a read-only descriptor, and Landlock mediates ioctls on devices only: a child that keeps the host's uid
# changed a stdlib file's flags that way. No check needs one. 0x15: the generic ioctls that read a file system's
# identity (Linux 6.5+), answered on any descriptor of any file with no ownership asked: FS_IOC_GETFSSYSFSPATH named the
# host's block device and file system type (`ext4/vda`) under the stdlib, zoneinfo and a scratch on the host's disk,
# FS_IOC_GETFSUUID the host disk's UUID and the host devtmpfs's (made at boot: a machine identity shared by every run).
_FILE_SYSTEM_IOCTL_TYPES = (0x66, 0x58, 0x76, 0x94, 0x15)
# 'R', the random device's: /dev/urandom is a read root, and RNDGETENTCNT answers for the machine's one entropy pool
# (256 here, its init bits since Linux 5.18; before, the live estimate every interrupt and reader moves). Landlock
# denies device ioctls; where it is missing this does (its writers ask CAP_SYS_ADMIN, dropped already).
_RANDOM_IOCTL_TYPE = 0x52


# The C library's name-service databases: each lookup (getpwnam, getgrouplist, getprotobyname...) reads host files
# such as /etc/passwd natively, with no audit event and, without Landlock, nothing else in the way.
NSS_DATABASES = ("passwd", "group", "initgroups", "shadow", "gshadow", "hosts", "networks", "protocols", "services",
                 "rpc", "ethers", "netgroup", "aliases", "publickey")
NO_NSS_SERVICE = b"coworkenv-sandbox-none"  # no libnss_<name>.so exists, and only root can write library folders


def disable_name_services(libc: ctypes.CDLL) -> str | None:
    """Point every glibc name-service database at a service that does not exist, so that no lookup reads a host
    file (accounts, groups, protocols, hosts) whatever Python module or fresh builtin the code calls it through.
    Returns why it could not, or None (C libraries without NSS read those files directly: Landlock covers them)."""
    configure = getattr(libc, "__nss_configure_lookup", None)
    if configure is None:
        return "the C library has no __nss_configure_lookup (not glibc)"
    for database in NSS_DATABASES:
        if configure(database.encode(), NO_NSS_SERVICE) != 0:
            return f"__nss_configure_lookup({database}) failed ({_errno_text(ctypes.get_errno())})"
    return None


# CPython's PyTypeObject, in pointer-sized words: three header words and eighteen slots, then tp_flags; tp_base is
# word 32, tp_new word 39.
_WORD = ctypes.sizeof(ctypes.c_void_p)
_TP_CALL, _TP_FLAGS, _TP_BASE, _TP_NEW = 16 * _WORD, 21 * _WORD, 32 * _WORD, 39 * _WORD
# PyModuleObject's `md_def` and `md_state`; PyModuleDef's `m_name` and `m_size` (3.11's layout)
_MODULE_DEF, _MODULE_STATE, _DEF_NAME, _DEF_SIZE = 3 * _WORD, 4 * _WORD, 5 * _WORD, 7 * _WORD
_TPFLAGS_BASETYPE = 1 << 10
CTYPES_BASES = ("_SimpleCData", "_Pointer", "Structure", "Union", "Array", "CFuncPtr")
POINTER_CODES = ("z", "Z", "O", "X")  # char*, wchar_t*, PyObject*, BSTR: simple types that dereference an address


def reaches_memory(cls: type) -> bool:
    """Whether instances of the C data type `cls` read or write memory at an address set as data, with no audit
    event: pointer types, char/wchar/object pointers, and structures, unions and arrays holding one; and function
    pointers, which run the code at an address set as data: a call of a foreign function raises no audit event
    (Python 3.11 audits `_ctypes.call_function` only: `ctypes.memmove`, `memset` and a library's functions ran with
    the hook none the wiser, forty-first round), and one is made from any integer."""
    if any(base.__name__ in ("_Pointer", "CFuncPtr") and base.__module__ == "_ctypes" for base in cls.__mro__):
        return True
    parts = [getattr(cls, "_type_", None)] + [field[1] for field in getattr(cls, "_fields_", ())]
    return any(part in POINTER_CODES or (isinstance(part, type) and reaches_memory(part)) for part in parts)


def seal_ctypes() -> str | None:
    """Leave the code no C data type that reaches memory by an address (`reaches_memory`): `_ctypes` stays loaded
    once this bootstrap used it, and its types stay reachable through `object.__subclasses__()`. Clears
    "acceptable base type" on every one of them (no new C data type can be defined: one could add a pointer
    field), empties the pointer-type cache and makes each that reaches memory uninstantiable (no `tp_new`).
    Returns why it could not, or None.
    The function pointers already made (the C library's functions the layers called, `ctypes.memmove` and `memset`,
    whose calls raise no audit event) are made uncallable too: every function pointer type loses its call slot, and
    the base type the `__call__` that wraps it (nothing here calls a foreign function after this)."""
    import _ctypes

    _ctypes._pointer_type_cache.clear()  # type: ignore[attr-defined]
    functions: type = _ctypes.CFuncPtr  # type: ignore[attr-defined]
    call = ctypes.c_void_p.from_address(id(functions) + _TP_CALL).value
    wrapper = functions.__dict__.get("__call__")
    if not call or type(wrapper).__name__ != "wrapper_descriptor":
        return "CFuncPtr does not have the call slot this bootstrap knows"
    pending: list[type] = [getattr(_ctypes, name) for name in CTYPES_BASES]
    while pending:
        cls = pending.pop()
        pending.extend(type.__subclasses__(cls))
        flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
        base = ctypes.c_void_p.from_address(id(cls) + _TP_BASE).value
        if flags.value != cls.__flags__ or base != id(cls.__base__):
            return f"{cls.__qualname__} does not have the type layout this bootstrap knows"
        flags.value = cls.__flags__ & ~_TPFLAGS_BASETYPE  # a subclass could add fields of a pointer type
        if reaches_memory(cls):
            ctypes.c_void_p.from_address(id(cls) + _TP_NEW).value = None
        if issubclass(cls, functions):
            slot = ctypes.c_void_p.from_address(id(cls) + _TP_CALL)
            if slot.value != call or (cls is not functions and "__call__" in cls.__dict__):
                return f"{cls.__qualname__} does not have the call slot this bootstrap knows"
            slot.value = None
    # A static type's attributes cannot be deleted: its dict, reached through the read-only view of it.
    held = gc.get_referents(functions.__dict__)
    if len(held) != 1 or type(held[0]) is not dict or held[0].get("__call__") is not wrapper:
        return "CFuncPtr's attributes are not held where this bootstrap knows"
    held[0].pop("__call__")
    sys._clear_type_cache()  # the lookup cache may hold the wrapper
    return None


# `_io`'s buffered types hand their raw stream's `readinto` and `write` a memoryview of their own buffer that has no
# owner (`view.obj` is None), and free that buffer when they are collected or initialised again: a raw stream of the
# code's own kept the view and read and wrote whatever took the freed block next, a bytearray's header among them, so
# all memory, with no audit event (CPython gh-60198; forty-third round). Sealed here: a buffered object is made in C
# only over raw streams whose `readinto` and `write` are C code that keeps no view (an exact FileIO or BytesIO, whose
# two methods become data descriptors, so no attribute of an instance stands in for them: C looks an instance's own
# attributes up before a plain method); over any other raw stream it is `_pyio`'s pure-Python twin, which hands the
# stream only buffers it owns. The types take no subclass (one could bring a `__new__` of its own) and no second
# `__init__` (C's, run again by the code, freed the buffer and took any raw stream). The gates are functions whose
# code and defaults the hook keeps (`sealed_codes`); they look no name up.
BUFFERED_TYPES = ("BufferedReader", "BufferedWriter", "BufferedRandom", "BufferedRWPair")
OWN_RAW_TYPES = ("FileIO", "BytesIO")
VIEW_TAKERS = ("readinto", "write")  # the raw stream's methods a buffered object hands its buffer to
_TPFLAGS_IMMUTABLETYPE = 1 << 8
_ABSENT = object()


def _own_method_get(self: Any, obj: Any, cls: Any = None, original: Any = None) -> Any:
    return original if obj is None else original.__get__(obj, cls)


def _own_method_set(self: Any, obj: Any, value: Any, error: Any = None) -> None:
    raise error("the methods a buffered stream hands its buffer to cannot be replaced in the sandbox")


def _buffered_new(
    cls: Any, first: Any = _ABSENT, second: Any = _ABSENT, third: Any = _ABSENT, own: tuple[type, ...] = (),
    made: tuple[type, ...] = (), pair: Any = None, generic: Any = None, absent: Any = _ABSENT, type_: Any = type,
    getattr_: Any = getattr, import_: Any = None, error: Any = TypeError, *more: Any, **named: Any,
) -> Any:
    raws = (first, second) if cls is pair else (named.get("raw", absent) if first is absent else first,)
    in_c = True
    for raw in raws:
        known = False
        for kind in own:
            if type_(raw) is kind:
                known = True
        in_c = in_c and known
    if in_c:  # C's own init runs next, on the same arguments
        return generic(cls)
    given = []
    for arg in (first, second, third):
        if arg is not absent:
            given.append(arg)
    made_here = getattr_(import_("_pyio"), cls.__name__)(*given, *more, **named)
    for kind in made:
        if type_(made_here) is kind:  # C's init would run on it with the code's raw stream
            raise error("a C buffered stream over a raw stream of the code's own")
    return made_here


# `array.array` stores an item by asking the value for its number (`__index__`, `__float__`: Python code of the
# code's own) after it checked the index against the array's size, and writes at that index into whatever buffer the
# array holds by then: a value that shrinks the array from there wrote 8 chosen bytes past the new buffer, at a chosen
# offset (`a[i] = v`, and `append`, `insert`, `extend`, `fromlist`, which convert after the array grew): a bytearray
# header's data pointer, all memory, no audit event (forty-fourth round). Sealed here: those five are gates that
# convert the values into a fresh array first (no Python code can reach it while it is made) and then store what
# that holds with C code that calls no Python code and checks the array's size as it writes (`+=` of an array,
# `struct.pack_into`). `tofile` counted its 64 KiB blocks once and read them after each `write` of the file's (the
# code's own), which could shrink the array: a read past the buffer; it writes a copy taken first now. The C methods
# they replace are dropped (a gate holds only C code that is safe with any
# argument), so are the item-assignment slots (pointed at the ones that call `__setitem__`, as a Python class's);
# `array` is multi-phase, so every load of its file makes new types: the hook refuses any load after this one.
ARRAY_GATES = ("__setitem__", "append", "insert", "extend", "fromlist", "tofile")
SEALED_MODULES = frozenset({"array", "pyexpat", "_csv"})  # loaded and sealed by the bootstrap; a later load of the file is refused
_TP_AS_SEQUENCE, _TP_AS_MAPPING = 13 * _WORD, 14 * _WORD
_SQ_ASS_ITEM, _MP_ASS_SUBSCRIPT = 5 * _WORD, 2 * _WORD
# A wrapper descriptor: the object header, its type, name and qualified name, then its slot entry and C function.
_DESCR_BASE, _DESCR_WRAPPED = 5 * _WORD, 6 * _WORD


def _word(address: int) -> int:
    """The pointer-sized word at `address` (0 for NULL)."""
    return ctypes.c_void_p.from_address(address).value or 0


def _array_setitem(self: Any, index: Any, value: Any, tools: Any = ()) -> None:
    (array_t, typecode, itemsize, get, drop, concat, tobytes, pack, len_, index_, isinstance_, type_, slice_t,
     range_, ord_, type_error, value_error, index_error, wide, _, _, _) = tools
    code = typecode(self)
    if type_(index) is slice_t:
        if not isinstance_(value, array_t):
            raise type_error(f"can only assign array (not \"{type_(value).__name__}\") to array slice")
        if typecode(value) != code:
            raise type_error("bad argument type for built-in operation")
        start, stop, step = index.indices(len_(self))
        if (step > 0 and stop < start) or (step < 0 and stop > start):
            stop = start
        source, size = tobytes(value), itemsize(self)
        needed = len_(source) // size
        if step == 1 and needed == stop - start:
            pack(f"{len_(source)}s", self, start * size, source)
        elif step == 1:
            tail = get(self, slice_t(stop, None))
            drop(self, slice_t(start, None))
            concat(self, value if value is not self else array_t(code, source))
            concat(self, tail)
        elif needed == 0:
            drop(self, index)
        else:
            places = range_(start, stop, step)
            if needed != len_(places):
                raise value_error(f"attempt to assign array of size {needed} to extended slice of size {len_(places)}")
            at = 0
            for place in places:
                pack(f"{size}s", self, place * size, source[at:at + size])
                at += size
        return
    place, count = index_(index), len_(self)
    if place < 0:
        place += count
    if place < 0 or place >= count:
        raise index_error("array assignment index out of range")
    item = get(array_t(code, (value,)), 0)  # the value's own code runs here, on an array nothing else can reach
    if code == "u":
        pack(wide, self, place * itemsize(self), ord_(item))
    else:
        pack(code, self, place * itemsize(self), item)  # raises, where the array shrank meanwhile


def _array_append(self: Any, value: Any, tools: Any = ()) -> None:
    tools[5](self, tools[0](tools[1](self), (value,)))


def _array_extend(self: Any, values: Any, tools: Any = ()) -> None:
    array_t, typecode, concat, isinstance_, iter_ = tools[0], tools[1], tools[5], tools[10], tools[20]
    concat(self, values if isinstance_(values, array_t) else array_t(typecode(self), iter_(values)))


def _array_fromlist(self: Any, values: Any, tools: Any = ()) -> None:
    if not tools[10](values, tools[21]):
        raise tools[15]("arg must be list")
    tools[5](self, tools[0](tools[1](self), values))


def _array_insert(self: Any, index: Any, value: Any, tools: Any = ()) -> None:
    array_t, typecode, get, drop, concat, len_, index_, slice_t = (
        tools[0], tools[1], tools[3], tools[4], tools[5], tools[8], tools[9], tools[12])
    place = index_(index)
    item = array_t(typecode(self), (value,))
    count = len_(self)
    if place < 0:
        place = place + count if place + count > 0 else 0
    if place > count:
        place = count
    tail = get(self, slice_t(place, None))
    drop(self, slice_t(place, None))
    concat(self, item)
    concat(self, tail)


def _array_tofile(self: Any, file: Any, tools: Any = ()) -> None:
    data, block = tools[6](self), 64 * 1024
    for at in tools[13](0, tools[8](data), block):
        file.write(data[at:at + block])


def _load_array() -> Any:
    """`array`, loaded with `_collections_abc` (which `os` loaded already) standing for `collections.abc` while its
    module runs: it registers `array.array` as a `MutableSequence`, and importing the `collections` package for that
    cost the bootstrap 1.2 ms a call. The class registered with is the same (`collections.abc` re-exports it)."""
    abcs = sys.modules.get("_collections_abc")
    aliased = [] if abcs is None else [name for name in ("collections", "collections.abc") if name not in sys.modules]
    for name in aliased:  # `PyImport_ImportModule` asks for the package first: it stands in for that too, unread
        sys.modules[name] = abcs  # type: ignore[assignment]
    try:
        import array
    finally:
        for name in aliased:
            if sys.modules.get(name) is abcs:
                del sys.modules[name]
    return array


def seal_array() -> str | None:
    """Make `array.array` convert values before it writes them (above). Returns why it could not, or None."""
    import builtins

    array = _load_array()

    function_t: Any = type(_own_method_get)
    modified = ctypes.pythonapi.PyType_Modified
    modified.argtypes, modified.restype = (ctypes.py_object,), None
    cls = array.array
    held = gc.get_referents(cls.__dict__)
    if len(held) != 1 or type(held[0]) is not dict or type.__subclasses__(cls):
        return "array.array's attributes are not held where this bootstrap knows"
    own = held[0]
    if any(type(own.get(name)).__name__ not in ("wrapper_descriptor", "method_descriptor") for name in
           (*ARRAY_GATES, "__getitem__", "__delitem__", "__iadd__", "tobytes")):
        return "array.array's methods are not the C methods this bootstrap knows"
    probe = type("probe", (), {"__setitem__": _own_method_set, "__delitem__": _own_method_set})
    slots = []
    for table, offset in ((_TP_AS_MAPPING, _MP_ASS_SUBSCRIPT), (_TP_AS_SEQUENCE, _SQ_ASS_ITEM)):
        theirs = ctypes.c_void_p.from_address(id(cls) + table).value
        ours = ctypes.c_void_p.from_address(id(probe) + table).value
        if not theirs or not ours or not ctypes.c_void_p.from_address(ours + offset).value:
            return "array.array does not have the type layout this bootstrap knows"
        slots.append((ctypes.c_void_p.from_address(theirs + offset), ctypes.c_void_p.from_address(ours + offset).value))
    wide = {2: "H", 4: "I"}.get(array.array("u").itemsize)
    if wide is None:
        return "array.array's 'u' items are of a size this bootstrap does not know"
    tools = (cls, own["typecode"].__get__, own["itemsize"].__get__, own["__getitem__"], own["__delitem__"],
             own["__iadd__"], own["tobytes"], struct.pack_into, builtins.len, _index, builtins.isinstance, type,
             slice, range, builtins.ord, TypeError, ValueError, IndexError, wide, None, builtins.iter, list)
    for name, gate in (("__setitem__", _array_setitem), ("append", _array_append), ("insert", _array_insert),
                       ("extend", _array_extend), ("fromlist", _array_fromlist), ("tofile", _array_tofile)):
        own[name] = function_t(gate.__code__, {}, name, (tools,))
    for slot, value in slots:
        slot.value = value
    modified(cls)
    return None


def _install_gates(cls: Any, flags: Any, gates: dict[str, Any], removed: tuple[str, ...] = (), cleared: int = 0) -> None:
    """Set each gate on the C type `cls` through `type.__setattr__` and take each of `removed` its type's dict holds
    away through `type.__delattr__`, its immutable flag (`flags`) lifted for the calls, so that the type's slots (and
    every subclass's) follow; the flags in `cleared` (`_TPFLAGS_BASETYPE`: no subclass from now on) stay cleared."""
    flags.value = cls.__flags__ & ~(_TPFLAGS_IMMUTABLETYPE | cleared)
    try:
        for name, gate in gates.items():
            type.__setattr__(cls, name, gate)
        for name in removed:
            if name in cls.__dict__:
                type.__delattr__(cls, name)
    finally:
        flags.value = cls.__flags__ | _TPFLAGS_IMMUTABLETYPE


# `mmap.mmap` stores an item (`m[i] = v`) by checking the index against the map's size, then asking the value for its
# number (`__index__`: Python code of the code's own), then writing at that index into whatever the map's data
# pointer covers by then (CPython 3.11.7 checks that the map is still open there, not its size): a value that shrinks
# the map from its `__index__` (`resize`, a `mremap` that unmaps the tail) wrote the byte into the hole it left, which
# the process's next mapping fills (a list's table of items: one item then named a forged bytearray header, all
# memory, no audit event; fifty-second round). The forty-fourth round's pass (`array`'s twin of this write) left
# `mmap` out; its other methods convert their numbers before they check them. Sealed here: `__setitem__` is a gate
# that holds a memoryview of the map for the whole store (an exported map refuses `resize` and `close`: BufferError),
# converts key and value there, and stores exact numbers and the value's bytes through that view (C code that calls
# no Python code); the answers and errors are C's. It holds no C method of the map's (the item slots follow the dict,
# so `m[i] = v` and C callers take the gate); item deletion keeps C's (it refuses before it converts anything).
# `mmap` is multi-phase: a later load of its file is refused, as for every extension the bootstrap loaded.
def _mmap_setitem(self: Any, key: Any, value: Any, tools: Any = ()) -> None:
    (mmap_t, view_t, index_, isinstance_, type_, getattr_, slice_t, len_, range_, type_error, value_error,
     index_error, buffer_error) = tools
    if not isinstance_(self, mmap_t):
        raise type_error(f"descriptor '__setitem__' requires a 'mmap.mmap' object but received a "
                         f"'{type_(self).__name__}'")
    with view_t(self) as view:  # ValueError where the map is closed; while it is held, the map cannot move
        if view.readonly:
            raise type_error("mmap can't modify a readonly memory map.")
        size = view.nbytes
        if getattr_(type_(key), "__index__", None) is not None:
            place = index_(key)
            if not -2**63 <= place < 2**63:
                raise index_error(f"cannot fit '{type_(key).__name__}' into an index-sized integer")
            if place < 0:
                place += size
            if place < 0 or place >= size:
                raise index_error("mmap index out of range")
            if getattr_(type_(value), "__index__", None) is None:
                raise type_error("mmap item value must be an int")
            number = index_(value)
            if not -2**63 <= number < 2**63:
                raise type_error(f"cannot fit '{type_(value).__name__}' into an index-sized integer")
            if number < 0 or number > 255:
                raise value_error("mmap item value must be in range(0, 256)")
            view[place] = number
            return
        if type_(key) is not slice_t:
            raise type_error("mmap indices must be integer")
        start, stop, step = key.indices(size)
        count = len_(range_(start, stop, step))
        try:
            given = view_t(value)
        except type_error:
            raise type_error(f"a bytes-like object is required, not '{type_(value).__name__}'") from None
        with given:
            if not given.c_contiguous:
                raise buffer_error("memoryview: underlying buffer is not C-contiguous")
            with given.cast("B") as data:
                if data.nbytes != count:
                    raise index_error("mmap slice assignment is wrong size")
                if count:
                    view[slice_t(start, stop if stop >= 0 else None, step)] = data


def seal_mmap() -> str | None:
    """Make `mmap.mmap` convert an item's value while the map cannot move (above). Returns why it could not, or
    None."""
    import builtins
    import mmap

    cls: Any = mmap.mmap
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or type.__subclasses__(cls)
            or type(cls.__dict__.get("__setitem__")).__name__ != "wrapper_descriptor"):
        return "mmap.mmap is not the C type this bootstrap knows"
    function_t: Any = type(_mmap_setitem)
    tools = (cls, memoryview, _index, builtins.isinstance, type, builtins.getattr, slice, builtins.len, range,
             TypeError, ValueError, IndexError, BufferError)
    _install_gates(cls, flags, {"__setitem__": function_t(_mmap_setitem.__code__, {}, "__setitem__", (tools,))})
    return None


# A list's extended-slice store (`a[start:stop:step] = value`, a step other than 1) works the slice out against the
# list's size, then turns the value into a list (`PySequence_Fast`: an `__iter__` of the code's own, a generator, a
# `map`), then writes each new item at `start + k * step` of whatever table the list holds by then and drops the item
# it found there: CPython 3.11.7 never looks at the size again (gh-120384, fixed in 3.12 and 3.13 only). An `__iter__`
# that shrank the list had the store land past its new table: a bytearray header's data pointer set to another
# header, all memory, no audit event (fifty-third round). Sealed here: `list.__setitem__` is a gate that converts the
# value first, then works the slice out against the size the list has by then, and stores through C code that calls
# no Python code and checks its bounds: an item store made from the sequence slot's C function (`list_ass_item`, whose
# wrapper CPython makes for types without a mapping slot: here from `deque`'s), `__delitem__`, `__getitem__` and
# `extend` (a slice of step 1 is the tail cut off, the new items and the tail put back). It holds no C store that
# converts anything (the item slots follow the dict, so `a[i] = v`, C callers and subclasses take the gate; the
# interpreter's own specialised store of an int index into an exact list stays C's, which converts nothing). The
# answers and errors are C's.
def _list_setitem(self: Any, key: Any, value: Any, /, *, _sealed_tools: Any = ()) -> None:
    (store, delete, read, extend, list_t, tuple_t, slice_t, int_t, isinstance_, type_, getattr_, index_, iter_, len_,
     range_, map_, any_, zip_, chain_, type_error, index_error, value_error) = _sealed_tools
    kind = type_(key)
    if kind is int_t and -9223372036854775808 <= key <= 9223372036854775807:
        store(self, key, value)  # the index checked against the list's size, the value stored as it is
        return
    if kind is not slice_t:
        if getattr_(kind, "__index__", None) is None:
            if not isinstance_(self, list_t):
                raise type_error(f"descriptor '__setitem__' requires a 'list' object but received a "
                                 f"'{type_(self).__name__}'")
            raise type_error(f"list indices must be integers or slices, not {kind.__name__}")
        place = index_(key)
        if not -9223372036854775808 <= place <= 9223372036854775807:
            raise index_error(f"cannot fit '{kind.__name__}' into an index-sized integer")
        store(self, place, value)
        return
    if not isinstance_(self, list_t):
        raise type_error(f"descriptor '__setitem__' requires a 'list' object but received a '{type_(self).__name__}'")
    step, start, stop = key.step, key.start, key.stop
    if step is not None or (start is not None and type_(start) is not int_t) or (
            stop is not None and type_(stop) is not int_t):
        bounds = []
        for part in (step, start, stop):  # C's order, each asked once
            if part is not None and getattr_(type_(part), "__index__", None) is None:
                raise type_error("slice indices must be integers or None or have an __index__ method")
            bounds.append(None if part is None else index_(part))
            if len_(bounds) == 1 and bounds[0] == 0:
                raise value_error("slice step cannot be zero")
        step, start, stop = bounds
    if value is self or (type_(value) is not list_t and type_(value) is not tuple_t):
        try:
            items = iter_(value)
        except type_error:
            raise type_error("can only assign an iterable" if step is None or step == 1
                             else "must assign iterable to extended slice") from None
        value = list_t(items)
    items = tuple_t(value)  # nothing of the code's runs from here on, but the drop of a replaced item, held till the end
    start, stop, step = slice_t(start, stop, step).indices(len_(self))  # the size the list has now
    _replaced = read(self, slice_t(start, stop, step))  # dropped at the end, as C drops what it replaced
    count = len_(items)
    if step == 1:
        stop = stop if stop > start else start
        size, tail = stop - start, len_(self) - stop
        if tail <= count:  # a short tail: cut off from the start, the new items and the tail put back
            kept = read(self, slice_t(stop, None))
            delete(self, slice_t(start, None))
            extend(self, items)
            extend(self, kept)
        else:  # a long one stays where it is: the items stored in place, the rest deleted or put in
            for place in range_(start, start + (count if count < size else size)):
                store(self, place, items[place - start])
            if count < size:
                delete(self, slice_t(start + count, stop))
            elif count > size:
                kept = read(self, slice_t(stop, None))
                delete(self, slice_t(stop, None))
                extend(self, items[size:])
                extend(self, kept)
        return
    places = range_(start, stop, step)
    if count != len_(places):
        raise value_error(f"attempt to assign sequence of size {count} to extended slice of size {len_(places)}")
    if count < 16 or step > 4 or step < -4:  # few items, or far apart: each stored, checked against the size
        any_(map_(store.__get__(self), places, items))  # the C store bound to the list: no descriptor call per item
        return
    if step < 0:  # the same places from the lowest, with the items in that order
        places, items, step = places[::-1], items[::-1], -step
    low, high = places[0], places[-1]
    between = []  # the items between two places, count - 1 of each (a loop: a comprehension is a closure)
    for gap in range_(1, step):
        between.append(read(self, slice_t(low + gap, high, step)))
    kept = read(self, slice_t(high + 1, None))
    delete(self, slice_t(low, None))
    if between:
        extend(self, chain_(zip_(items[:-1], *between)))  # the new items interleaved with those between them
        extend(self, items[-1:])
    else:  # a reversed run of places side by side
        extend(self, items)
    extend(self, kept)


def seal_list() -> str | None:
    """Make `list.__setitem__` convert the value before it works out a slice (above). Returns why it could not, or
    None."""
    import _collections
    import builtins
    import itertools

    cls: Any = list
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    setitem, sequence_setitem = cls.__dict__.get("__setitem__"), _collections.deque.__dict__.get("__setitem__")
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or type(setitem).__name__ != "wrapper_descriptor" or type(sequence_setitem).__name__ != "wrapper_descriptor"):
        return "list is not the C type this bootstrap knows"

    # The type's sequence and mapping tables hold its item stores (`_SQ_ASS_ITEM`, `_MP_ASS_SUBSCRIPT`).
    sequence_store = _word(_word(id(cls) + _TP_AS_SEQUENCE) + _SQ_ASS_ITEM)
    if (_word(id(setitem) + _DESCR_WRAPPED) != _word(_word(id(cls) + _TP_AS_MAPPING) + _MP_ASS_SUBSCRIPT)
            or _word(id(sequence_setitem) + _DESCR_WRAPPED) != _word(_word(id(_collections.deque) + _TP_AS_SEQUENCE)
                                                                     + _SQ_ASS_ITEM)
            or ctypes.string_at(_word(_word(id(sequence_setitem) + _DESCR_BASE))) != b"__setitem__"
            or not sequence_store):
        return "list is not the C type this bootstrap knows"
    make = ctypes.pythonapi.PyDescr_NewWrapper
    make.argtypes, make.restype = (ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p), ctypes.py_object
    store = make(cls, _word(id(sequence_setitem) + _DESCR_BASE), sequence_store)
    probe = [0, 1]
    store(probe, -1, 2)
    try:
        store(probe, 2, 3)
    except IndexError:
        pass
    else:
        return "list's sequence item store does not check its index"
    if probe != [0, 2]:
        return "list's sequence item store is not the one this bootstrap knows"
    function_t: Any = type(_list_setitem)
    tools = (store, cls.__dict__["__delitem__"], cls.__dict__["__getitem__"], cls.__dict__["extend"], list, tuple, slice,
             int, builtins.isinstance, type, builtins.getattr, _index, builtins.iter, builtins.len, range, map,
             builtins.any, builtins.zip, itertools.chain.from_iterable, TypeError, IndexError,
             ValueError)
    gate = function_t(_list_setitem.__code__, {}, "__setitem__", None, None)
    gate.__kwdefaults__ = {"_sealed_tools": tools}
    _install_gates(cls, flags, {"__setitem__": gate})  # the item slots of the type (and any subclass) follow
    return None


# `bytearray` stores an item or a slice (`b[i] = v`, `b[i:j:k] = v`, `del b[...]`) by taking its data pointer first,
# then asking the key for its number, a slice's bounds for theirs and an item's value for its own (`__index__`: Python
# code of the code's own), then checking the index against the size the bytearray has by then and writing (or moving
# bytes) at the pointer it took (CPython gh-91153, never fixed in 3.11; a slice's value converted into a bytearray is
# stored by a second call, whose bounds are asked again after its pointer). A value whose `__index__` emptied the
# bytearray and filled it again had the byte land in the freed buffer, where a list's table of items had gone: an item
# then named a forged bytearray header, all memory, no audit event (fifty-fourth round). Sealed here: `__setitem__`
# and `__delitem__` are gates that convert key, bounds and value first (C's order, C's errors), work the slice out
# against the size the bytearray has then, and store through C code that converts nothing after it takes a pointer:
# the sequence slot's item store (`bytearray_setitem`, which converts its value before it looks at the buffer, made
# into a wrapper descriptor from `deque.__setitem__`'s slot entry, as `seal_list` does), a memoryview of the bytearray
# for a slice of the same size (an exported bytearray cannot move), and `pop`, `clear`, `extend` and `__getitem__`
# where the size changes (the tail cut off, the new bytes and the tail put back). They hold no C store that converts
# anything (the item slots follow the dict, so `b[i] = v`, `operator.setitem`, C callers and subclasses take them).
def _bytearray_setitem(self: Any, key: Any, value: Any = _ABSENT, /, *, _sealed_tools: Any = ()) -> None:
    (store, pop, clear, extend, read, bytearray_t, view_t, slice_t, int_t, str_t, complex_t, isinstance_, type_,
     getattr_, index_, len_, range_, type_error, index_error, value_error, absent, drop_first, repeat_, any_,
     map_) = _sealed_tools
    kind = type_(key)
    if (kind is int_t and type_(value) is int_t and 0 <= value <= 255 and -9223372036854775808 <= key
            <= 9223372036854775807 and isinstance_(self, bytearray_t)):
        if key < 0:  # an exact byte: nothing of the code's runs
            key += len_(self)
        if key < 0:
            raise index_error("bytearray index out of range")
        store(self, key, value)  # checks the index against the size: C converts nothing
        return
    if not isinstance_(self, bytearray_t):
        raise type_error(f"descriptor '{'__delitem__' if value is absent else '__setitem__'}' requires a 'bytearray' "
                         f"object but received a '{type_(self).__name__}'")
    if kind is not slice_t:
        if getattr_(kind, "__index__", None) is None:
            raise type_error(f"bytearray indices must be integers or slices, not {kind.__name__}")
        place = key if kind is int_t else index_(key)
        if not -9223372036854775808 <= place <= 9223372036854775807:
            raise index_error(f"cannot fit '{kind.__name__}' into an index-sized integer")
        if value is not absent:
            if type_(value) is not int_t:
                if getattr_(type_(value), "__index__", None) is None:
                    raise type_error(f"'{type_(value).__name__}' object cannot be interpreted as an integer")
                value = index_(value)  # the value's own code runs here, before any pointer is taken
            if not 0 <= value <= 255:
                raise value_error("byte must be in range(0, 256)")
        if place < 0:
            place += len_(self)  # the size the bytearray has now
        if place < 0 or place >= len_(self):
            raise index_error("bytearray index out of range")
        if value is absent:
            pop(self, place)
        else:
            store(self, place, value)  # an exact byte at an index in range: C converts nothing
        return
    bounds = []
    for part in (key.step, key.start, key.stop):  # C's order, each asked once
        if part is not None and type_(part) is not int_t:
            if getattr_(type_(part), "__index__", None) is None:
                raise type_error("slice indices must be integers or None or have an __index__ method")
            part = index_(part)
        bounds.append(part)
        if len_(bounds) == 1 and part == 0:
            raise value_error("slice step cannot be zero")
    step, start, stop = bounds
    if value is absent:
        data = b""
    elif value is not self and isinstance_(value, bytearray_t):
        data = value
    else:
        kind = type_(value)
        if (isinstance_(value, str_t) or isinstance_(value, complex_t) or getattr_(kind, "__index__", None) is not None
                or getattr_(kind, "__int__", None) is not None or getattr_(kind, "__float__", None) is not None):
            raise type_error("can assign only bytes, buffers, or iterables of ints in range(0, 256)")
        data = bytearray_t(value)  # the value's own code runs here, before any pointer is taken
    start, stop, step = slice_t(start, stop, step).indices(len_(self))  # the size the bytearray has now
    needed = len_(data)
    if step == 1:
        stop = stop if stop > start else start
        if needed == stop - start:
            if needed:
                with view_t(self) as view:  # exported: the bytearray cannot move while the bytes are copied
                    view[start:stop] = data
            return
        if not start and not needed and stop * 16 < len_(self):  # a few bytes off the head (a parser's buffer)
            any_(map_(drop_first, repeat_(self, stop), repeat_(0, stop)))  # each C's cheap cut of the first byte
            return
        kept = read(self, slice_t(stop, None))
        if len_(self) - start <= 64:  # few bytes cut off: one at a time from the end
            for _ in range_(len_(self) - start):
                pop(self)
        else:  # many: the head kept, the rest dropped (an exported bytearray refuses here, nothing changed)
            head = read(self, slice_t(0, start))
            clear(self)
            extend(self, head)
        extend(self, data)
        extend(self, kept)
        return
    places = range_(start, stop, step)
    count = len_(places)
    if needed and needed != count:
        raise value_error(f"attempt to assign bytes of size {needed} to extended slice of size {count}")
    if not count:
        if not needed:  # C asks whether the bytearray may be resized first: a byte put on and taken off
            extend(self, b"\0")
            pop(self)
        return
    if needed:
        with view_t(self) as view:
            view[slice_t(start, stop if stop >= 0 else None, step)] = data
        return
    if step < 0:  # the same places from the lowest
        places, step = places[::-1], -step
    low, high = places[0], places[-1]
    kept = bytearray_t()
    if count <= step:  # few places far apart: the runs between them, one by one
        for place in places[:-1]:
            extend(kept, read(self, slice_t(place + 1, place + step)))
    else:  # many close together: the bytes between them, interleaved column by column
        kept = bytearray_t((count - 1) * (step - 1))
        with view_t(kept) as view:
            for gap in range_(1, step):
                view[gap - 1::step - 1] = read(self, slice_t(low + gap, high, step))
    extend(kept, read(self, slice_t(high + 1, None)))
    if len_(self) - low <= 64:
        for _ in range_(len_(self) - low):
            pop(self)
    else:
        head = read(self, slice_t(0, low))
        clear(self)
        extend(self, head)
    extend(self, kept)


# `bytearray.join` took the separator's data pointer and size first, then turned its argument into a list (an
# `__iter__` or generator of the code's own), then copied the separator from that pointer between the items (gh-112625,
# fixed in 3.11.8): an argument that emptied the separator had join copy whatever took the freed block next into the
# result (a bytearray's header: its buffer's address), or read an unmapped page (fifty-fifth round). Sealed with the
# stores: `join` is a gate that reads the argument first (C's error where it is no iterable), then copies the
# separator and joins with `bytes.join` (whose separator nothing can free) into a new bytearray, as C answers.
def _bytearray_join(self: Any, iterable: Any, /, *, _sealed_tools: Any = ()) -> Any:
    bytearray_t, bytes_t, list_t, tuple_t, isinstance_, type_, iter_, read, whole, join, type_error = _sealed_tools
    if not isinstance_(self, bytearray_t):
        raise type_error(f"descriptor 'join' for 'bytearray' objects doesn't apply to a '{type_(self).__name__}' object")
    if type_(iterable) is not list_t and type_(iterable) is not tuple_t:
        try:
            items = iter_(iterable)
        except type_error:
            raise type_error("can only join an iterable") from None
        iterable = list_t(items)  # the code's own code runs here, before the separator is read
    return bytearray_t(join(bytes_t(read(self, whole)), iterable))


# `bytearray`'s searches (`find`, `rfind`, `index`, `rindex`, `count`, `startswith`, `endswith`, `in`), its `%`
# formatting and its `hex` take the data pointer and size first, then ask the arguments for their numbers, lengths
# and texts (a bound's or needle's `__index__`, a separator's `__len__`, a formatted value's `__index__`, `__bytes__`
# or `__repr__`: Python code of the code's own), then read from that pointer (gh-142558 to gh-142560 for the searches;
# the separator and the formatting found in the fifty-eighth round; none fixed in 3.11): an argument that emptied the
# bytearray had C read the freed block (what took it next, in a `hex` that answers those bytes) or an unmapped page
# (SIGSEGV). Sealed with the stores: each is a gate that copies the bytearray before anything of the code's runs and
# asks the `bytes` method of the same name (the same C code, the same answers and errors) on the copy, which nothing
# can free; `%` and its reflected form answer a bytearray, as C's. They hold `bytes` methods only (immutable bytes).
def _bytearray_read(self: Any, /, *args: Any, _sealed_tools: Any = (), **kwargs: Any) -> Any:
    (bytearray_t, isinstance_, type_, join, empty, method, result_t, type_error, name, slot, tail, plain, int_t,
     tuple_t, view_t, len_, max_) = _sealed_tools
    if not isinstance_(self, bytearray_t):
        if slot:
            raise type_error(f"descriptor '{name}' requires a 'bytearray' object but received a "
                             f"'{type_(self).__name__}'")
        raise type_error(f"descriptor '{name}' for 'bytearray' objects doesn't apply to a '{type_(self).__name__}' "
                         f"object")
    if tail and not kwargs and 1 <= len_(args) <= 3:  # startswith, endswith: only the bytes they compare, where
        # every argument is of a type whose conversion runs nothing of the code's (C's answer, as tailmatch's)
        affix, bounds = args[0], args[1:]
        affixes = affix if type_(affix) is tuple_t else (affix,)
        longest = 0
        for part in affixes:
            if type_(part) not in plain:
                longest = -1
                break
            longest = max_(longest, len_(part))
        for part in bounds:
            if part is not None and type_(part) is not int_t:
                longest = -1
        if longest >= 0:
            size = len_(self)
            start = 0 if len_(bounds) < 1 or bounds[0] is None else bounds[0]
            end = size if len_(bounds) < 2 or bounds[1] is None else bounds[1]
            if end > size:
                end = size
            elif end < 0:
                end = max_(end + size, 0)
            if start < 0:
                start = max_(start + size, 0)
            if start > end:
                return False
            if tail < 0:
                low, high = start, (end if end < start + longest else start + longest)
            else:
                low, high = max_(start, end - longest), end
            return method(join(empty, (view_t(self)[low:high],)), affix)
    answer = method(join(empty, (self,)), *args, **kwargs)  # the copy is taken before the code's own code runs
    return answer if result_t is None else result_t(answer)


def _bytearray_rmod(self: Any, other: Any, /, *, _sealed_tools: Any = ()) -> Any:
    bytearray_t, isinstance_, type_, join, empty, mod, not_implemented, type_error = _sealed_tools
    if not isinstance_(self, bytearray_t):
        raise type_error(f"descriptor '__rmod__' requires a 'bytearray' object but received a '{type_(self).__name__}'")
    if not isinstance_(other, bytearray_t):
        return not_implemented
    return bytearray_t(mod(join(empty, (other,)), self))  # the format copied before the values' own code runs


# `bytearray.__init__`, run on a bytearray that exists (`bytearray.__init__(b, items)`, a subclass's
# `super().__init__(items)`), empties it, then appends each item an iterable gives through a fast path of its own: while
# `size + 1 < alloc` it bumps the size and writes the byte at `start + size - 1`, never asking how far the start has
# moved into the allocation (CPython 3.11.7; every other append resizes through `PyByteArray_Resize`, which counts it).
# The start moves when bytes are cut off the head (`del b[:k]`, C's cheap cut, which `_bytearray_setitem` keeps for a
# parser's buffer) and the size stays at least half the allocation; so an iterable's `__next__` or an item's
# `__index__` (Python code of the code's own, run inside the loop) that filled the bytearray and cut a few bytes off
# its head had the next items written past the end of its block: another bytearray's buffer, made after it, changed
# (sixty-fifth round). Sealed here: `__init__` is a gate that holds no C `__init__` (C's, called on a bytearray of the
# code's with an iterable, is the hole); it parses its arguments as C's clinic does (C's messages), empties the
# bytearray first (C's order and BufferError), and fills it with `extend` (bytes, an encoded text, a buffer's bytes, a
# list's or tuple's items converted into a bytearray of extend's own), `*=` (a count of zeros) or `append` for each item
# any other iterable gives (C's conversions and messages, and what C left behind on an error: the items appended so
# far; for a bad item of a list or tuple C left its whole size, partly never written: nothing here). Each resizes
# through `PyByteArray_Resize`. `bytearray(...)` and C callers (`PyByteArray_FromObject`) take the gate through the
# type's init slot, which follows the dict.
def _bytearray_init(self: Any, /, *args: Any, _sealed_tools: Any = (), **named: Any) -> None:
    (bytearray_t, isinstance_, type_, str_t, clear, extend, append, imul, encode, index_, view_t, iter_, any_, map_,
     repeat_, getattr_, len_, range_, list_t, tuple_t, bytes_t, type_error, value_error, overflow_error, base_exception,
     absent, names) = _sealed_tools
    if not isinstance_(self, bytearray_t):
        raise type_error(f"descriptor '__init__' requires a 'bytearray' object but received a '{type_(self).__name__}'")
    given = len_(args) + len_(named)
    if given > 3:
        raise type_error(f"bytearray() takes at most 3 arguments ({given} given)")
    values = [*args, absent, absent, absent]
    if named:
        for place in range_(len_(args)):
            if names[place] in named:
                raise type_error(f"argument for bytearray() given by name ('{names[place]}') and position "
                                 f"({place + 1})")
        for name in named:
            if name not in names:
                raise type_error(f"'{name}' is an invalid keyword argument for bytearray()")
        for place in range_(len_(args), 3):
            if names[place] in named:
                values[place] = named[names[place]]
    source, encoding, errors = values[0], values[1], values[2]
    for name, text in (("encoding", encoding), ("errors", errors)):
        if text is not absent:
            if not isinstance_(text, str_t):
                raise type_error(f"bytearray() argument '{name}' must be str, not "
                                 f"{'None' if text is None else type_(text).__name__}")
            if b"\0" in encode(text):  # C's UTF-8 form: its surrogate error first
                raise value_error("embedded null character")
    if len_(self):
        clear(self)  # C empties it first of all (BufferError where it is exported)
    if (type_(source) is bytes_t or type_(source) is bytearray_t) and encoding is absent and errors is absent:
        extend(self, source)  # a plain buffer: its bytes (the one way honest code fills one from bytes)
        return
    if source is absent:
        if encoding is not absent or errors is not absent:
            raise type_error("encoding without a string argument" if encoding is not absent
                             else "errors without a string argument")
        return
    if isinstance_(source, str_t):
        if encoding is absent:
            raise type_error("string argument without an encoding")
        extend(self, encode(source, encoding) if errors is absent else encode(source, encoding, errors))
        return
    if encoding is not absent or errors is not absent:
        raise type_error("encoding without a string argument" if encoding is not absent
                         else "errors without a string argument")
    if getattr_(type_(source), "__index__", None) is not None:
        try:
            count = index_(source)
        except type_error:
            count = absent  # C goes on to the buffer and the iterable
        if count is not absent:
            if not -9223372036854775808 <= count <= 9223372036854775807:
                raise overflow_error(f"cannot fit '{type_(source).__name__}' into an index-sized integer")
            if count < 0:
                raise value_error("negative count")
            if count <= 8:
                extend(self, b"\0\0\0\0\0\0\0\0"[:count])  # one resize to the count, as C's
            else:  # one byte, then one resize to the count (no second copy of a large count in memory)
                extend(self, b"\0")
                try:
                    imul(self, count)
                except base_exception:
                    clear(self)
                    raise
            return
    try:
        view = view_t(source)
    except type_error:
        view = None
    if view is not None:
        with view:
            extend(self, view if view.c_contiguous else view.tobytes())
        return
    if type_(source) is list_t or type_(source) is tuple_t:
        extend(self, source)  # converted into a bytearray of extend's own first, then copied in
        return
    try:
        items = iter_(source)
    except type_error:
        raise type_error(f"cannot convert '{type_(source).__name__}' object to bytearray") from None
    any_(map_(append, repeat_(self), items))  # each item converted, then appended through a resize that counts


_BYTEARRAY_READS = ("find", "rfind", "index", "rindex", "count", "startswith", "endswith", "hex")
_BYTEARRAY_READ_SLOTS = ("__contains__", "__mod__")


def seal_bytearray() -> str | None:
    """Make `bytearray`'s item and slice stores convert what they are given before they take a pointer, and `join`
    read its argument before its separator (above). Returns why it could not, or None."""
    import _collections
    import builtins
    import itertools

    cls: Any = bytearray
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    own = cls.__dict__
    sequence_setitem = _collections.deque.__dict__.get("__setitem__")
    sequence_delitem = _collections.deque.__dict__.get("__delitem__")
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or any(type(own.get(name)).__name__ != "wrapper_descriptor" for name in ("__setitem__", "__delitem__"))
            or type(sequence_setitem).__name__ != "wrapper_descriptor"
            or type(sequence_delitem).__name__ != "wrapper_descriptor"):
        return "bytearray is not the C type this bootstrap knows"

    sequence_store = _word(_word(id(cls) + _TP_AS_SEQUENCE) + _SQ_ASS_ITEM)
    if (_word(id(own["__setitem__"]) + _DESCR_WRAPPED) != _word(_word(id(cls) + _TP_AS_MAPPING) + _MP_ASS_SUBSCRIPT)
            or _word(id(sequence_setitem) + _DESCR_WRAPPED) != _word(_word(id(_collections.deque) + _TP_AS_SEQUENCE)
                                                                     + _SQ_ASS_ITEM)
            or _word(id(sequence_delitem) + _DESCR_WRAPPED) != _word(id(sequence_setitem) + _DESCR_WRAPPED)
            or ctypes.string_at(_word(_word(id(sequence_setitem) + _DESCR_BASE))) != b"__setitem__"
            or not sequence_store
            or ctypes.string_at(_word(_word(id(sequence_delitem) + _DESCR_BASE))) != b"__delitem__"):
        return "bytearray is not the C type this bootstrap knows"
    make = ctypes.pythonapi.PyDescr_NewWrapper
    make.argtypes, make.restype = (ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p), ctypes.py_object
    store = make(cls, _word(id(sequence_setitem) + _DESCR_BASE), sequence_store)
    drop_first = make(cls, _word(id(sequence_delitem) + _DESCR_BASE), sequence_store)
    probe = bytearray(b"abc")
    drop_first(probe, 0)
    if probe != b"bc":
        return "bytearray's sequence item deletion is not the one this bootstrap knows"
    store(probe, 1, 100)
    try:
        store(probe, 2, 1)
    except IndexError:
        pass
    else:
        return "bytearray's sequence item store does not check its index"
    if probe != b"bd":
        return "bytearray's sequence item store is not the one this bootstrap knows"
    tools = (store, own["pop"], own["clear"], own["extend"], own["__getitem__"], cls, memoryview, slice, int, str,
             complex, builtins.isinstance, type, builtins.getattr, _index, builtins.len, range, TypeError, IndexError,
             ValueError, _ABSENT, drop_first, itertools.repeat, builtins.any, map)
    function_t: Any = type(_bytearray_setitem)
    gates: dict[str, Any] = {}
    for name in ("__setitem__", "__delitem__"):
        gate = function_t(_bytearray_setitem.__code__, {}, name, (_ABSENT,), None)
        gate.__kwdefaults__ = {"_sealed_tools": tools}
        gates[name] = gate
    if type(own.get("join")).__name__ != "method_descriptor" or type(bytes.__dict__.get("join")).__name__ != (
            "method_descriptor"):
        return "bytearray is not the C type this bootstrap knows"
    gates["join"] = function_t(_bytearray_join.__code__, {}, "join", None, None)
    gates["join"].__kwdefaults__ = {"_sealed_tools": (
        cls, bytes, list, tuple, builtins.isinstance, type, builtins.iter, own["__getitem__"], slice(None),
        bytes.__dict__["join"], TypeError)}
    for name in _BYTEARRAY_READS + _BYTEARRAY_READ_SLOTS + ("__rmod__",):
        kind = "wrapper_descriptor" if name.startswith("__") else "method_descriptor"
        if type(own.get(name)).__name__ != kind or type(bytes.__dict__.get(name)).__name__ != kind:
            return "bytearray is not the C type this bootstrap knows"
    for name in _BYTEARRAY_READS + _BYTEARRAY_READ_SLOTS:
        gate = function_t(_bytearray_read.__code__, {}, name, None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (
            cls, builtins.isinstance, type, bytes.__dict__["join"], b"", bytes.__dict__[name],
            cls if name == "__mod__" else None, TypeError, name, name.startswith("__"),
            {"startswith": -1, "endswith": 1}.get(name, 0), frozenset((bytes, bytearray)), int, tuple, memoryview,
            builtins.len, builtins.max)}
        gates[name] = gate
    if (type(own.get("__init__")).__name__ != "wrapper_descriptor"
            or any(type(own.get(name)).__name__ != "method_descriptor" for name in ("append", "clear", "extend"))):
        return "bytearray is not the C type this bootstrap knows"
    gates["__init__"] = function_t(_bytearray_init.__code__, {}, "__init__", None, None)
    gates["__init__"].__kwdefaults__ = {"_sealed_tools": (
        cls, builtins.isinstance, type, str, own["clear"], own["extend"], own["append"], own["__imul__"],
        str.__dict__["encode"], _index, memoryview, builtins.iter, builtins.any, map, itertools.repeat,
        builtins.getattr, builtins.len, range, list, tuple, bytes, TypeError, ValueError, OverflowError, BaseException, _ABSENT,
        ("source", "encoding", "errors"))}
    gates["__rmod__"] = function_t(_bytearray_rmod.__code__, {}, "__rmod__", None, None)
    gates["__rmod__"].__kwdefaults__ = {"_sealed_tools": (
        cls, builtins.isinstance, type, bytes.__dict__["join"], b"", bytes.__dict__["__mod__"], NotImplemented,
        TypeError)}
    _install_gates(cls, flags, gates)  # the item, containment and remainder slots (and every subclass's) follow
    return None


# Two memoryviews whose formats are not the same native one (`'q'` against `'d'`, a standard-size or struct format)
# are compared (`==`, `!=`, and so `in`, `list.index`, `dict` lookups) by the struct module: C looks `Struct` up in
# `sys.modules["struct"]` at each comparison (a module attribute, or a module, the code may replace), makes one per
# format, and calls its `unpack_from` on each item with a memoryview of a small block C allocated and frees as the
# comparison ends: a writable view with no owner (`view.obj` is None; gh-142663 reports the comparison reading that
# freed memory, the view is gh-60198's kind). An `unpack_from` of the code's own kept it, and after the comparison it
# wrote a freed 16-byte block, which a two-item list's table took: an item then named a forged bytearray header, all
# memory, no audit event (fifty-fifth round). Sealed here: `__eq__` and `__ne__` are gates that compare on copies,
# with the real `_struct.Struct` taken at start where C would use the struct module, and with `tobytes` (integers,
# characters, pointers) or `tolist` (floats and bools, compared as values) where both formats are the same native
# one; shapes and errors as C's (an unknown format compares unequal, a buffer that cannot be had answers
# NotImplemented, a released view equals itself only). They hold no C comparison (its struct route is the hole), set
# through `type.__setattr__` so the comparison slot follows; `<` and the others stay C's (NotImplemented at once).
_NATIVE_VIEW_FORMATS = "cbB?hHiIlLqQnNfdP"  # what C's get_native_fmtchar takes (CPython 3.11: no 'e')
_PY_BUFFER_ROOM = 128  # more than a Py_buffer takes (80 bytes on a 64-bit build)


def _view_compare(self: Any, other: Any, /, *, _sealed_tools: Any = ()) -> Any:
    (view_t, isinstance_, type_, struct_t, native, len_, range_, zip_, value_error, memory_error, import_error,
     type_error, not_implemented, exception_t, equal, name) = _sealed_tools
    if not isinstance_(self, view_t):
        raise type_error(f"descriptor '{name}' requires a 'memoryview' object but received a '{type_(self).__name__}'")
    try:
        _ = self.format, (other.format if isinstance_(other, view_t) else None)
    except value_error:  # released: a view equals itself only, as C's
        return (self is other) is equal
    own = None
    if not isinstance_(other, view_t):
        try:
            own = other = view_t(other)
        except exception_t:
            return not_implemented
    try:
        same = self.ndim == other.ndim
        if same:
            for size, other_size in zip_(self.shape, other.shape):
                if size != other_size:
                    same = False
                    break
                if not size:
                    break
        mine, theirs = self.format, other.format
        if not same:
            pass
        elif mine in native and theirs in native and mine[-1] == theirs[-1]:
            # floats and bools compared as values (a NaN is unequal to itself), the rest byte for byte
            same = self.tolist() == other.tolist() if mine[-1] in "fd?" else self.tobytes() == other.tobytes()
        else:
            try:
                unpack_mine = struct_t(self.format).unpack_from
                unpack_theirs = struct_t(other.format).unpack_from
            except (import_error, memory_error):
                raise
            except exception_t:  # a format struct does not know: unequal, as C's
                return not equal
            count = 1
            for size in self.shape:
                count *= size
            data_mine, data_theirs = self.tobytes(), other.tobytes()
            step_mine, step_theirs = self.itemsize, other.itemsize
            for at in range_(count):
                item = unpack_mine(data_mine[at * step_mine:(at + 1) * step_mine])
                other_item = unpack_theirs(data_theirs[at * step_theirs:(at + 1) * step_theirs])
                if len_(item) == 1:
                    item = item[0]
                if len_(other_item) == 1:
                    other_item = other_item[0]
                if not (item is other_item or item == other_item):
                    same = False
                    break
    finally:
        if own is not None:
            own.release()
    return same is equal


# `hash()` of a read-only memoryview asks the exporter's own `__hash__` first (Python code of the code's own, on a
# subclass), then hashes the view's memory from the pointer it had: a `__hash__` that released the view and emptied
# its bytearray had C hash a freed block, or read an unmapped page (gh-142664; SIGSEGV on 3.11.7). Sealed here:
# `__hash__` is a gate that holds a second view of the same buffer while the exporter's `__hash__` runs (the exporter
# cannot be resized or freed under it), then hashes a copy of the memory, the same hash as C's (bytes hash alike).
# Changed for honest code: the hash is not kept (a view whose memory changed hashes anew; a released one raises).
def _view_hash(self: Any, /, *, _sealed_tools: Any = ()) -> Any:
    view_t, isinstance_, type_, hash_, byte_formats, value_error, type_error = _sealed_tools
    if not isinstance_(self, view_t):
        raise type_error(f"descriptor '__hash__' requires a 'memoryview' object but received a "
                         f"'{type_(self).__name__}'")
    with view_t(self) as held:  # ValueError where released, as C's; the buffer stays exported while it is held
        if not held.readonly:
            raise value_error("cannot hash writable memoryview object")
        if held.format not in byte_formats:
            raise value_error("memoryview: hashing is restricted to formats 'B', 'b' or 'c'")
        exporter = held.obj
        if exporter is not None:
            hash_(exporter)  # the code's own code may run here
        return hash_(held.tobytes())


# A memoryview's `hex(sep)` takes the view's pointer and size, then asks a separator of the code's own for its
# length (`__len__` of a str subclass: Python code), then reads: a `__len__` that released the view and emptied its
# bytearray had C read the freed buffer (fifty-eighth round, as the bytearray's own `hex`). Sealed here: `hex` is a
# gate that copies the view first (`tobytes`: C order, the released view's error) and asks `bytes.hex` on the copy.
def _view_hex(self: Any, /, *args: Any, _sealed_tools: Any = (), **kwargs: Any) -> Any:
    view_t, isinstance_, type_, tobytes, hex_, type_error = _sealed_tools
    if not isinstance_(self, view_t):
        raise type_error(f"descriptor 'hex' for 'memoryview' objects doesn't apply to a '{type_(self).__name__}' "
                         f"object")
    return hex_(tobytes(self), *args, **kwargs)


# A memoryview's item store by a tuple of indices (`m[(i,)] = v`, `m[i, j] = v`) takes the view's data pointer first,
# then asks each index for its number (`__index__`: Python code of the code's own), then packs the value at the
# pointer it walked to; for the format 'c' nothing is checked after (every other format asks whether the view was
# released once it converted the value: gh-92888's fix). An index that released the view and emptied its bytearray had
# the byte land in the freed block, where a list's table of items had gone: an item then named an address of the
# code's choosing (fifty-eighth round). Sealed here: `__setitem__` is a gate that converts the key first (C's order and
# errors, each index checked against its dimension before the next is asked), converts the value through C's own store
# into a private view of the same format whose buffer nothing can free (an export of another view of it is held for
# good, and the store the gate holds is bound to the private view: called by the code with any key, it writes there),
# then writes those bytes into a one-item view of the target with `struct.pack_into`, which holds the target exported
# while it writes (a view released meanwhile is refused, as C refuses for the other formats); a slice store reads its
# value first and writes it the same way. It holds no store of the target's; item deletion keeps C's (it refuses
# before it converts anything). Exact integers stored at exact indices of a 1-d integer view skip the private view.
def _view_index_like(part: Any, /, *, _sealed_tools: Any = ()) -> bool:
    isinstance_, type_, getattr_, int_t = _sealed_tools
    return isinstance_(part, int_t) or getattr_(type_(part), "__index__", None) is not None


def _view_setitem(self: Any, key: Any, value: Any, /, *, _sealed_tools: Any = ()) -> None:
    (view_t, isinstance_, type_, getattr_, index_, len_, range_, tuple_t, slice_t, int_t, ellipsis, stores,
     pack_into, lock, all_, zip_, map_, repeat_, is_index, type_error, value_error, index_error, unsupported,
     plain, tuple_items, whole, bytes_t, unsigned_bytes) = _sealed_tools
    if type_(key) is int_t and type_(value) is int_t and type_(self) is view_t:  # exact numbers: no code of the code's
        held = plain.get(self.format)  # ValueError where released, as C's
        if held is not None and self.ndim == 1 and not self.readonly:
            pack_value, low, high, pack_item = held
            count = len_(self)
            place = key + count if key < 0 else key
            if low <= value <= high and 0 <= place < count:
                pack_item(self[place:place + 1], 0, pack_value(value))
                return
    if type_(key) is slice_t and type_(value) is bytes_t and type_(self) is view_t and key.step is None:
        first, last = key.start, key.stop  # bytes into a byte view's plain slice: no code of the code's to run
        if ((first is None or type_(first) is int_t) and (last is None or type_(last) is int_t)
                and self.format in unsigned_bytes and self.ndim == 1 and not self.readonly and self.c_contiguous):
            start, stop, _ = slice_t(first, last).indices(len_(self))
            if stop < start:
                stop = start
            if stop - start == len_(value):  # otherwise C's message, below
                if value:
                    pack_into(f"{len_(value)}s", self[start:stop], 0, value)
                return
    if not isinstance_(self, view_t):
        raise type_error(f"descriptor '__setitem__' requires a 'memoryview' object but received a "
                         f"'{type_(self).__name__}'")
    fmt = self.format  # ValueError where released, as C's
    single = fmt[1:] if fmt[:1] == "@" else fmt
    if len_(single) != 1:
        raise unsupported(f"memoryview: unsupported format {fmt}")
    if self.readonly:
        raise type_error("cannot modify read-only memory")
    ndim, shape = self.ndim, self.shape
    places = []
    if ndim == 0:
        if key is not ellipsis and not (isinstance_(key, tuple_t) and not len_(tuple_items(key, whole))):
            raise type_error("invalid indexing of 0-dim memory")
    elif is_index(key):
        if ndim > 1:
            raise unsupported("sub-views are not implemented")
        places.append(key)
    elif isinstance_(key, slice_t) and ndim == 1:
        try:
            source = view_t(value)  # the value's buffer first, as C's (no code of the code's runs here)
        except type_error:
            raise type_error(f"a bytes-like object is required, not '{type_(value).__name__}'") from None
        try:
            bounds = []
            for part in (key.step, key.start, key.stop):  # C's order, each asked once
                if part is not None and type_(part) is not int_t:
                    if getattr_(type_(part), "__index__", None) is None:
                        raise type_error("slice indices must be integers or None or have an __index__ method")
                    part = index_(part)
                bounds.append(part)
                if len_(bounds) == 1 and part == 0:
                    raise value_error("slice step cannot be zero")
            start, stop, step = slice_t(bounds[1], bounds[2], bounds[0]).indices(shape[0])
            target = self[slice_t(start, stop if stop >= 0 else None, step)]  # refused where released, as C's
            mine, theirs = target.format, source.format
            if ((mine[1:] if mine[:1] == "@" else mine) != (theirs[1:] if theirs[:1] == "@" else theirs)
                    or target.itemsize != source.itemsize or target.ndim != source.ndim
                    or target.shape != source.shape):
                raise value_error("memoryview assignment: lvalue and rvalue have different structures")
            data = source.tobytes()
        finally:
            source.release()
        if not data:
            return
        if target.c_contiguous:
            pack_into(f"{len_(data)}s", target, 0, data)
            return
        size = target.itemsize
        for at in range_(target.shape[0]):
            pack_into(f"{size}s", target[at:at + 1], 0, data[at * size:(at + 1) * size])
        return
    elif isinstance_(key, tuple_t) and all_(map_(is_index, tuple_items(key, whole))):  # the items C reads
        key = tuple_items(key, whole)
        if len_(key) < ndim:
            raise unsupported("sub-views are not implemented")
        if len_(key) > ndim:
            raise type_error(f"cannot index {ndim}-dimension view with {len_(key)}-element tuple")
        places.extend(key)
    elif isinstance_(key, slice_t) or (isinstance_(key, tuple_t)
                                       and all_(map_(isinstance_, tuple_items(key, whole), repeat_(slice_t)))):
        raise unsupported("memoryview slice assignments are currently restricted to ndim = 1")
    else:
        raise type_error("memoryview: invalid slice key")
    for dim in range_(len_(places)):  # each index converted and checked before the next is asked, as C's
        place = places[dim]
        if type_(place) is not int_t:
            place = index_(place)  # the code's own code runs here, before anything is written
        if not -9223372036854775808 <= place <= 9223372036854775807:
            raise index_error("cannot fit 'int' into an index-sized integer")
        if place < 0:
            place += shape[dim]
        if place < 0 or place >= shape[dim]:
            raise index_error(f"index out of bounds on dimension {dim + 1}")
        places[dim] = place
    held = stores.get(single)
    if held is None:
        raise unsupported(f"memoryview: format {single} not supported")
    store, scratch, pack_item = held
    with lock:  # one private view per format: its bytes read back before another store of it
        store(0, value)  # C's own conversion and errors, written where nothing is freed
        data = scratch.tobytes()
    if not places:
        target = self
    elif ndim == 1:
        target = self[places[0]:places[0] + 1]  # refused where the view was released meanwhile
    else:
        offset = 0
        for place, stride in zip_(places, self.strides):
            offset += place * stride
        target = view_t.cast(self, "B")[offset:offset + self.itemsize]
    pack_item(target, 0, data)  # the target exported while the bytes are written


def seal_memoryview() -> str | None:
    """Make a memoryview's comparisons hand no view of C's own memory to a `Struct` of the code's, and its hash, `hex`
    and item stores read and write no memory the code's own code freed (above). Returns why it could not, or None."""
    import _thread
    import builtins
    import itertools

    cls: Any = memoryview
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    names = ("__eq__", "__ne__", "__hash__")
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or cls.__flags__ & _TPFLAGS_BASETYPE
            or any(type(cls.__dict__.get(name)).__name__ != "wrapper_descriptor" for name in names)
            or type(struct.Struct) is not type or struct.Struct.__module__ != "_struct"):
        return "memoryview is not the C type this bootstrap knows"
    native = frozenset(_NATIVE_VIEW_FORMATS) | frozenset("@" + char for char in _NATIVE_VIEW_FORMATS)
    function_t: Any = type(_view_compare)
    gates: dict[str, Any] = {}
    for name, equal in zip(names[:2], (True, False), strict=True):
        gate = function_t(_view_compare.__code__, {}, name, None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (
            memoryview, builtins.isinstance, type, struct.Struct, native, builtins.len, range, builtins.zip, ValueError,
            MemoryError, ImportError, TypeError, NotImplemented, Exception, equal, name)}
        gates[name] = gate
    gates["__hash__"] = function_t(_view_hash.__code__, {}, "__hash__", None, None)
    gates["__hash__"].__kwdefaults__ = {"_sealed_tools": (
        memoryview, builtins.isinstance, type, builtins.hash, frozenset(("B", "b", "c", "@B", "@b", "@c")), ValueError,
        TypeError)}
    if (type(cls.__dict__.get("hex")).__name__ != "method_descriptor"
            or type(cls.__dict__.get("tobytes")).__name__ != "method_descriptor"):
        return "memoryview is not the C type this bootstrap knows"
    raw_store = cls.__dict__.get("__setitem__")
    if type(raw_store).__name__ != "wrapper_descriptor":
        return "memoryview is not the C type this bootstrap knows"
    get_buffer = ctypes.pythonapi.PyObject_GetBuffer
    get_buffer.argtypes, get_buffer.restype = (ctypes.py_object, ctypes.c_void_p, ctypes.c_int), ctypes.c_int
    allocate = ctypes.pythonapi.PyMem_RawMalloc
    allocate.argtypes, allocate.restype = (ctypes.c_size_t,), ctypes.c_void_p
    base = cls(bytearray(8))
    block = allocate(_PY_BUFFER_ROOM)
    if not block or get_buffer(base, block, 0) != 0:  # an export never released: the buffer stays for good
        return "memoryview's private view could not be held"
    stores, packers = {}, {}
    for char in _NATIVE_VIEW_FORMATS:
        scratch = base.cast(char)  # the same buffer: a scratch the code releases only breaks its own later stores
        if scratch.itemsize not in packers:
            packers[scratch.itemsize] = struct.Struct(f"{scratch.itemsize}s").pack_into
        stores[char] = (raw_store.__get__(scratch, cls), scratch, packers[scratch.itemsize])
    del base
    plain = {}  # exact integers stored at exact indices: packed by struct, in range, with no conversion to make
    for char in "bBhHiIlLqQnN":
        size = struct.calcsize(char)
        low, high = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if char.islower() else (0, (1 << (8 * size)) - 1)
        for name in (char, "@" + char):
            plain[name] = (struct.Struct(char).pack, low, high, stores[char][2])
    index_like = function_t(_view_index_like.__code__, {}, "index_like", None, None)
    index_like.__kwdefaults__ = {"_sealed_tools": (builtins.isinstance, type, builtins.getattr, int)}
    gates["__setitem__"] = function_t(_view_setitem.__code__, {}, "__setitem__", None, None)
    gates["__setitem__"].__kwdefaults__ = {"_sealed_tools": (
        memoryview, builtins.isinstance, type, builtins.getattr, _index, builtins.len, range, tuple, slice, int,
        Ellipsis, stores, struct.pack_into, _thread.RLock(), builtins.all, builtins.zip, map, itertools.repeat,
        index_like, TypeError, ValueError, IndexError, NotImplementedError, plain, tuple.__getitem__, slice(None), bytes,
        frozenset(("B", "@B")))}
    gates["hex"] = function_t(_view_hex.__code__, {}, "hex", None, None)
    gates["hex"].__kwdefaults__ = {"_sealed_tools": (
        memoryview, builtins.isinstance, type, cls.__dict__["tobytes"], bytes.__dict__["hex"], TypeError)}
    _install_gates(cls, flags, gates)  # the comparison and hash slots of the type follow
    return None


# A list's ordering comparison (`<`, `<=`, `>`, `>=`) finds the first items that differ, then compares them again
# with the operator by borrowed references (CPython 3.11.7; the items are held since 3.12, gh-120298). An item of the
# other list whose type subclasses this one's has its reflected method asked first: it clears this list, whose
# reference was the item's last one but that of its frame, and answers NotImplemented, so the item is freed as the
# frame returns and its own method is asked next with the freed item as `self`, where bytearray buffers of its block
# size wrote a bytearray header of the code's own (all memory, no audit event; fifty-third round). Sealed here: the
# four are gates that compare tuples made of both lists (C's copies hold every item, and a tuple's comparison is the
# list's, item by item, the first pair that differs compared again), set through `type.__setattr__` so the type's
# comparison slot and its subclasses' follow; `==` and `!=` stay C's (they answer without a second comparison).
def _list_order(self: Any, other: Any, /, *, _sealed_tools: Any = ()) -> Any:
    list_t, tuple_t, isinstance_, type_, compare, name, type_error, not_implemented = _sealed_tools
    if not isinstance_(self, list_t):
        raise type_error(f"descriptor '{name}' requires a 'list' object but received a '{type_(self).__name__}'")
    if not isinstance_(other, list_t):
        return not_implemented
    return compare(tuple_t(self), tuple_t(other))


def seal_list_order() -> str | None:
    """Make a list's ordering comparisons hold the items they compare (above). Returns why it could not, or None."""
    import builtins
    import operator

    cls: Any = list
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    names = ("__lt__", "__le__", "__gt__", "__ge__")
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or any(type(cls.__dict__.get(name)).__name__ != "wrapper_descriptor" for name in names)):
        return "list is not the C type this bootstrap knows"
    function_t: Any = type(_list_order)
    gates: dict[str, Any] = {}
    for name, compare in zip(names, (operator.lt, operator.le, operator.gt, operator.ge), strict=True):
        gate = function_t(_list_order.__code__, {}, name, None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (list, tuple, builtins.isinstance, type, compare, name, TypeError,
                                                 NotImplemented)}
        gates[name] = gate
    _install_gates(cls, flags, gates)  # the comparison slot of the type (and any subclass) follows
    return None


# `struct.Struct.__init__` ran again on a live Struct: it makes the format's table of codes anew and frees the old one,
# which a `pack`, `pack_into` or `iter_unpack` under way still holds, with the sizes it checked against the old format.
# A value's `__index__` (Python code of the code's own, asked for each value as the walk goes) that initialised the
# Struct twice had the second format's codes take the freed block: the walk wrote 8 chosen bytes at offsets it chose,
# far past the buffer it had checked (a bytearray's header: all memory, no audit event); an iterator read past its
# buffer, `pack` returned bytes of the C stack (forty-sixth round). Sealed here: the type loses `__init__` from its dict
# (C's still runs once, when a Struct is made: `type_call` calls the slot; a second call meets `object.__init__`,
# which refuses arguments) and takes no subclass (whose instances would never be initialised, or could be again).
def seal_struct() -> str | None:
    """Initialise a `struct.Struct` only when it is made (above). Returns why it could not, or None."""
    modified = ctypes.pythonapi.PyType_Modified
    modified.argtypes, modified.restype = (ctypes.py_object,), None
    cls = struct.Struct
    held = gc.get_referents(cls.__dict__)
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (len(held) != 1 or type(held[0]) is not dict or type(held[0].get("__init__")).__name__ != "wrapper_descriptor"
            or flags.value != cls.__flags__ or type.__subclasses__(cls)):
        return "struct.Struct does not have the layout this bootstrap knows"
    flags.value = cls.__flags__ & ~_TPFLAGS_BASETYPE
    del held[0]["__init__"]  # type_call still runs C's (its slot), once, as the Struct is made
    modified(cls)
    return None


# `itertools.tee`'s iterators share a data object of 57 slots that records what the source gave so far (`numread`), and
# `__setstate__` takes any index up to 57 into it, where one up to `numread` is meant: an iterator set ahead of what
# was read stores the next value at its own slot and counts one more read, so the slots in between count as read
# though nothing was ever written there, and another iterator at one of them hands out whatever the block held before
# (the data object is a 512-byte block that a bytes object of the code's own had just freed: a pointer of the code's
# choosing, a forged bytearray header, all memory, no audit event; fifty-second round). Sealed here: `_tee` loses
# `__setstate__` (unpickling a tee raises; copies, which `__copy__` makes at the index they copy, still work). The
# type is static and takes no subclass; nothing else sets an index.
def seal_tee() -> str | None:
    """Take `__setstate__` from `itertools.tee`'s iterators (above). Returns why it could not, or None."""
    import itertools

    modified = ctypes.pythonapi.PyType_Modified
    modified.argtypes, modified.restype = (ctypes.py_object,), None
    cls: Any = type(itertools.tee(())[0])
    held = gc.get_referents(cls.__dict__)
    if (len(held) != 1 or type(held[0]) is not dict or cls.__flags__ & _TPFLAGS_BASETYPE
            or type(held[0].get("__setstate__")).__name__ != "method_descriptor"):
        return "itertools.tee's iterator is not the C type this bootstrap knows"
    del held[0]["__setstate__"]
    modified(cls)
    return None


# `itertools.cycle` keeps its first pass's items in a list and an index into it, and once its source is done reads
# the list's item at that index (`PyList_GET_ITEM`), checking the index against the list's size only after it moved it
# on (CPython 3.11). `__reduce__` handed out that very list (its state, for pickle and copy) and `__setstate__` took a
# list of the code's own as the saved one: a list cut to 20 items under an index of 30 had the next step hand out slot
# 30 of its table, an item the cut freed, whose block an object the code made next had taken (a forged object; or a
# read past the block: SIGSEGV; sixty-seventh round). Sealed here: the type has neither (its list stays its own), so a
# cycle does not pickle or copy ("cannot pickle 'itertools.cycle' object"), as a tee's iterators take no state.
def seal_cycle() -> str | None:
    """Take `__reduce__` and `__setstate__` from `itertools.cycle` (above). Returns why it could not, or None."""
    import itertools

    cls: Any = itertools.cycle
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or any(type(cls.__dict__.get(name)).__name__ != "method_descriptor"
                   for name in ("__reduce__", "__setstate__"))):
        return "itertools.cycle is not the C type this bootstrap knows"
    _install_gates(cls, flags, {}, removed=("__reduce__", "__setstate__"))
    return None



# `itertools.chain` steps the iterator it is on and the iterator it takes iterables from by borrowed references from
# its own fields (CPython 3.11's `chain_next`: `tp_iternext(lz->active)`, `PyIter_Next(lz->source)`), and
# `__setstate__` (pickling's way back) set both anew on a live chain, dropping what they held. A C iterator there, the
# chain its only holder, whose own step runs code of the code's own (a `map` stepping a generator) was freed by that
# code's `__setstate__` while its C step ran: the map the code made next took the freed block and the old step went on
# with its fields, stepping that map's iterators and calling its function (a use after free; a refill of the code's own
# bytes would forge an object; seventy-fourth round). Sealed here as `seal_cycle` does: the type has neither
# `__setstate__` nor `__reduce__` (nothing sets its fields but C's own steps, which hold what they drop no longer), so
# a chain does not pickle or copy ("cannot pickle 'itertools.chain' object", as in CPython 3.14, which took chains'
# pickling away); `chain.from_iterable`, subclasses and every step are C's.
def seal_chain() -> str | None:
    """Take `__reduce__` and `__setstate__` from `itertools.chain` (above). Returns why it could not, or None."""
    import itertools

    cls: Any = itertools.chain
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or any(type(cls.__dict__.get(name)).__name__ != "method_descriptor"
                   for name in ("__reduce__", "__setstate__"))):
        return "itertools.chain is not the C type this bootstrap knows"
    _install_gates(cls, flags, {}, removed=("__reduce__", "__setstate__"))
    return None


# C code that calls a callable it holds by a borrowed reference, from a field the callable's own code can set anew
# (CPython 3.11): a `defaultdict`'s `__missing__` calls `default_factory` (a writable attribute), a `staticmethod`
# object's call its function (`__init__` runs again on it). A Python function survives that (its frame holds it), a C
# callable does not: the bound `__next__` of a `filter` whose predicate set the factory anew freed the bound method,
# the filter and its source while the filter's C step ran, which then stepped the freed source with the freed
# filter's predicate: an item of a list iterator the code made next, in the source's block (a forged object alike;
# sixty-eighth round). Sealed here: `defaultdict.__missing__` and `staticmethod.__call__` are gates whose frames hold
# the callable while it runs (read through the type's own member, as C reads its field), in C's order (the factory
# called, its value stored with the dict's item store, returned; a missing factory's KeyError of the key).
def _defaultdict_missing(self: Any, key: Any, /, *, _sealed_tools: Any = ()) -> Any:
    defaultdict_t, isinstance_, type_, factory_of, key_error, type_error = _sealed_tools
    if not isinstance_(self, defaultdict_t):
        raise type_error(f"descriptor '__missing__' for 'collections.defaultdict' objects doesn't apply to a "
                         f"'{type_(self).__name__}' object")
    factory = factory_of(self)  # held by this frame while it runs
    if factory is None:
        raise key_error(key)
    value = factory()
    self[key] = value
    return value


def _staticmethod_call(self: Any, /, *args: Any, _sealed_tools: Any = (), **named: Any) -> Any:
    staticmethod_t, isinstance_, type_, function_of, type_error = _sealed_tools
    if not isinstance_(self, staticmethod_t):
        raise type_error(f"descriptor '__call__' requires a 'staticmethod' object but received a "
                         f"'{type_(self).__name__}'")
    function = function_of(self)  # held by this frame while it runs
    return function(*args, **named)


def seal_held_callables() -> str | None:
    """Make `defaultdict.__missing__` and a staticmethod's call hold the callable they call (above). Returns why it
    could not, or None."""
    import _collections
    import builtins

    function_t: Any = type(_defaultdict_missing)
    for cls, name, member, code, error in (
            (_collections.defaultdict, "__missing__", "default_factory", _defaultdict_missing.__code__, KeyError),
            (staticmethod, "__call__", "__func__", _staticmethod_call.__code__, None)):
        flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
        kind = "method_descriptor" if name == "__missing__" else "wrapper_descriptor"
        if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
                or type(cls.__dict__.get(name)).__name__ != kind
                or type(cls.__dict__.get(member)).__name__ != "member_descriptor"):
            return f"{cls.__name__} is not the C type this bootstrap knows"
        gate = function_t(code, {}, name, None, None)
        field = cls.__dict__[member].__get__
        gate.__kwdefaults__ = {"_sealed_tools": (cls, builtins.isinstance, type, field, *((error,) if error else ()),
                                                 TypeError)}
        _install_gates(cls, flags, {name: gate})  # a subclass's lookups and the call slot follow
    return None



# `property`'s `__get__`, `__set__` and `__delete__` (CPython 3.11) call the getter, setter or deleter straight from the
# property's fields, by a borrowed reference, and `property.__init__` run again on a live property sets all three anew:
# a C accessor (`lst.count`, a bound method that alone held its list) whose list's item re-initialised the property
# from its `__eq__` freed the bound method and the list while `list.count` walked it, and went on comparing the items
# of the list the code made next, which took the freed list's object (sixty-ninth round; the sixty-eighth round's
# class). Sealed here like `defaultdict.__missing__`: the three are gates whose frames hold the accessor while it runs
# (read through the type's own members, as C reads its fields), with C's answers and errors; a missing accessor's
# AttributeError names the property by the key its owner's classes keep it under (C names it by `__set_name__`'s
# name, which 3.11 keeps unreadable; they differ only for a property stored under another name than it was given).
def _property_get(self: Any, obj: Any, owner: Any = None, /, *, _sealed_tools: Any = ()) -> Any:
    property_t, isinstance_, type_, field, missing, attribute_error, type_error = _sealed_tools
    if not isinstance_(self, property_t):
        raise type_error(f"descriptor '__get__' requires a 'property' object but received a "
                         f"'{type_(self).__name__}'")
    if obj is None:
        if owner is None:
            raise type_error("__get__(None, None) is invalid")
        return self
    getter = field(self)  # held by this frame while it runs
    if getter is None:
        raise attribute_error(missing(self, obj, "getter"))
    return getter(obj)


def _property_set(self: Any, obj: Any, value: Any, /, *, _sealed_tools: Any = ()) -> None:
    property_t, isinstance_, type_, field, missing, attribute_error, type_error = _sealed_tools
    if not isinstance_(self, property_t):
        raise type_error(f"descriptor '__set__' requires a 'property' object but received a "
                         f"'{type_(self).__name__}'")
    setter = field(self)  # held by this frame while it runs
    if setter is None:
        raise attribute_error(missing(self, obj, "setter"))
    setter(obj, value)


def _property_delete(self: Any, obj: Any, /, *, _sealed_tools: Any = ()) -> None:
    property_t, isinstance_, type_, field, missing, attribute_error, type_error = _sealed_tools
    if not isinstance_(self, property_t):
        raise type_error(f"descriptor '__delete__' requires a 'property' object but received a "
                         f"'{type_(self).__name__}'")
    deleter = field(self)  # held by this frame while it runs
    if deleter is None:
        raise attribute_error(missing(self, obj, "deleter"))
    deleter(obj)


def _property_missing(prop: Any, obj: Any, what: str, /, *, _sealed_tools: Any = ()) -> str:
    type_, mro_of, dict_of, qualname_of = _sealed_tools
    cls = type_(obj)
    owner = qualname_of(cls)
    for klass in mro_of(cls):
        for key, value in dict_of(klass).items():
            if value is prop:
                return f"property {key!r} of {owner!r} object has no {what}"
    return f"property of {owner!r} object has no {what}"


def seal_property() -> str | None:
    """Make `property`'s `__get__`, `__set__` and `__delete__` hold the accessor they call (above). Returns why it
    could not, or None."""
    import builtins

    cls: Any = property
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or any(type(cls.__dict__.get(name)).__name__ != "wrapper_descriptor"
                   for name in ("__get__", "__set__", "__delete__"))
            or any(type(cls.__dict__.get(name)).__name__ != "member_descriptor" for name in ("fget", "fset", "fdel"))):
        return "property is not the C type this bootstrap knows"
    function_t: Any = type(_property_get)
    missing = function_t(_property_missing.__code__, {}, "_property_missing", None, None)
    missing.__kwdefaults__ = {"_sealed_tools": (type, type.__dict__["__mro__"].__get__,
                                                type.__dict__["__dict__"].__get__,
                                                type.__dict__["__qualname__"].__get__)}
    gates: dict[str, Any] = {}
    for name, code, member in (("__get__", _property_get.__code__, "fget"),
                               ("__set__", _property_set.__code__, "fset"),
                               ("__delete__", _property_delete.__code__, "fdel")):
        gate = function_t(code, {}, name, (None,) if name == "__get__" else None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (cls, builtins.isinstance, type, cls.__dict__[member].__get__,
                                                 missing, AttributeError, TypeError)}
        gates[name] = gate
    _install_gates(cls, flags, gates)  # a subclass's lookups and the descriptor slots follow
    return None



# `__isabstractmethod__` of a `property`, `classmethod` or `staticmethod` (CPython 3.11's `_PyObject_IsAbstract`) looks
# the attribute up on the getter, setter and deleter, or the wrapped callable, straight from the object's fields, by a
# borrowed reference, and `__init__` run again on the live object sets them anew. A lookup runs the code's own code
# (a class's `__getattribute__`), and C's `slot_tp_getattr_hook` goes on to call the class's `__getattr__` with the
# object it was given: a `__getattribute__` (a staticmethod, so no bound method holds the object) that re-initialised
# the property freed the object, the instance the code made next took its block, and `__getattr__` was handed that
# instance (seventy-third round, 5 routes of 5 on plain 3.11.7: getter, setter, deleter, classmethod, staticmethod).
# Sealed here: `__isabstractmethod__` of the three types is a property of the bootstrap's whose getter (a gate) holds
# each field while its attribute is looked up, read through the type's own members as C reads its fields, in C's
# order, with C's answers (an AttributeError of the lookup is no flag, any other error rises; the flag's truth).
def _abstract_flag(self: Any, /, *, _sealed_tools: Any = ()) -> bool:
    kind, isinstance_, type_, fields, getattr_, truth, absent, type_error = _sealed_tools
    if not isinstance_(self, kind):
        raise type_error(f"descriptor '__isabstractmethod__' for '{kind.__name__}' objects doesn't apply to a "
                         f"'{type_(self).__name__}' object")
    for field in fields:
        held = field(self)  # held by this frame while its attribute is looked up
        flag = getattr_(held, "__isabstractmethod__", absent)  # an AttributeError is no flag, as C's lookup
        if flag is not absent and truth(flag):
            return True
    return False


def seal_abstract_flags() -> str | None:
    """Make `__isabstractmethod__` of `property`, `classmethod` and `staticmethod` hold what it looks the flag up on
    (above). Returns why it could not, or None."""
    import builtins

    function_t: Any = type(_abstract_flag)
    for cls, members in ((property, ("fget", "fset", "fdel")), (classmethod, ("__func__",)),
                         (staticmethod, ("__func__",))):
        kind: Any = cls
        flags = ctypes.c_ulong.from_address(id(kind) + _TP_FLAGS)
        if (flags.value != kind.__flags__ or not kind.__flags__ & _TPFLAGS_IMMUTABLETYPE
                or type(kind.__dict__.get("__isabstractmethod__")).__name__ != "getset_descriptor"
                or any(type(kind.__dict__.get(name)).__name__ != "member_descriptor" for name in members)):
            return f"{kind.__name__} is not the C type this bootstrap knows"
        gate = function_t(_abstract_flag.__code__, {}, "__isabstractmethod__", None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (kind, builtins.isinstance, type,
                                                 tuple(kind.__dict__[name].__get__ for name in members),
                                                 builtins.getattr, bool, object(), TypeError)}
        _install_gates(kind, flags, {"__isabstractmethod__": property(gate)})
    return None


# The codec registry (CPython 3.11): a lookup (`codecs.lookup`, and every `encode`, `decode` and `open` of a name not
# cached yet) calls each registered search function straight from the interpreter's list of them, by a borrowed
# reference, and `codecs.unregister` drops the list's reference: a C search function (`lst.count`, a bound method
# that alone held its list) whose list's item unregistered it from its `__eq__` freed the bound method and the list
# while `list.count` walked it, and went on comparing the items of the list the code made next (sixty-ninth round;
# the sixty-eighth round's class). Sealed here: one search function of the bootstrap's (`_codec_search`, registered
# once, after the interpreter's own) calls the code's, from a list the `register` and `unregister` gates keep, walking
# a copy its frame holds, in their order; C's `register` and `unregister` are dropped from `_codecs` and `codecs`
# (the module is served once), so C's list holds Python functions only; the gates hold neither (their defaults are
# the code's to read). Changed for honest code: C's unregister cleared the registry's cache, which no Python code can
# without C's `register` at hand, so a name an unregistered function found before stays found (the cached codec);
# a search function another one unregisters during the same lookup is still asked in it (C skipped it).
def _codec_search(name: Any, /, *, _sealed_tools: Any = ()) -> Any:
    kept, list_ = _sealed_tools
    for search in list_(kept):  # a copy held by this frame: each function held while it runs
        found = search(name)
        if found is not None:
            return found
    return None


def _codec_register(search_function: Any, /, *, _sealed_tools: Any = ()) -> None:
    kept, callable_, type_error = _sealed_tools
    if not callable_(search_function):
        raise type_error("argument must be callable")
    kept.append(search_function)


def _codec_unregister(search_function: Any, /, *, _sealed_tools: Any = ()) -> None:
    kept, len_, range_ = _sealed_tools
    for index in range_(len_(kept)):
        if kept[index] is search_function:
            del kept[index]
            return


def seal_codec_registry() -> str | None:
    """Make the codec registry call the code's search functions from a list whose copy a frame holds (above). Returns
    why it could not, or None."""
    import _codecs
    import builtins

    module = sys.modules.get("codecs")
    names = ("register", "unregister")
    if (type(_codecs) is not type(sys) or any(type(vars(_codecs).get(name)).__name__ != "builtin_function_or_method"
                                             for name in names)
            or (module is not None and any(vars(module).get(name) is not vars(_codecs)[name] for name in names))):
        return "_codecs is not the built-in module this bootstrap knows"
    function_t: Any = type(_codec_search)
    kept: list[Any] = []
    search = function_t(_codec_search.__code__, {}, "_codec_search", None, None)
    search.__kwdefaults__ = {"_sealed_tools": (kept, list)}
    register, unregister = function_t(_codec_register.__code__, {}, "register", None, None), function_t(
        _codec_unregister.__code__, {}, "unregister", None, None)
    register.__kwdefaults__ = {"_sealed_tools": (kept, builtins.callable, TypeError)}
    unregister.__kwdefaults__ = {"_sealed_tools": (kept, len, range)}
    register.__doc__, unregister.__doc__ = _codecs.register.__doc__, _codecs.unregister.__doc__
    _codecs.register(search)  # after the interpreter's own, where C appends the code's
    gates = {"register": register, "unregister": unregister}
    vars(_codecs).update(gates)
    if module is not None:
        vars(module).update(gates)
    return None


# Signal handlers (CPython 3.11.7's `_PyErr_CheckSignalsTstate`) are read from C's table of them without a reference
# and called, and `signal.signal` run from inside one replaces the table's entry, dropping its reference: a C callable
# handler (`d.get`, a bound method that alone held its dict) whose key's `__eq__` set the signal's handler anew was
# freed with its dict while the lookup went on over it, and the lookup compared the keys of the dict the code made
# next (a use after free; the seventieth round's lead). A Python function survives that (its frame holds it). Sealed
# here: C's table holds Python functions only. `_signal.signal` is a gate that hands C any other callable wrapped in
# a Python function of its own (`handler`, nested below: its frame holds the callable while it runs) and unwraps what
# C answers; `getsignal` unwraps alike. C's setter is out of the code's reach: no module, gate or frame's local holds
# it. Its one reference is a key of the `__kwdefaults__` of a function whose code takes no such parameter (the box,
# never run with it), which only the audited `__kwdefaults__` getter reads, and the hook lets that read the box only
# from the gate's own frame with the gate's own tools (`sealed_boxes`). There C's setter is on the frame's value
# stack alone, which no Python code can read, while it runs (it runs pending signal handlers first: they get this
# frame, whose locals hold the box and the handlers, never the setter). Changed for honest code: a handler that is no
# Python function runs one Python frame deeper (a traceback through it shows `handler`).
def _signal_box() -> None:
    """Holds C's `signal.signal` as a default that no parameter of this code takes."""


def _signal_set(signalnum: Any, handler: Any, /, *, _sealed_tools: Any = ()) -> Any:
    box, function_t, type_, callable_, int_t, issubclass_, int_index, unwrap = _sealed_tools
    if type_(handler) is not function_t:  # exact types only: nothing of the code's runs to answer them
        if callable_(handler):
            def handler(signum: Any, frame: Any, /, *, _sealed_handler: Any = handler) -> Any:
                return _sealed_handler(signum, frame)
        elif issubclass_(type_(handler), int_t):
            handler = int_index(handler)  # an exact int, which C compares with SIG_DFL and SIG_IGN running nothing
        else:
            handler = None  # C's own TypeError, whatever the object's type becomes meanwhile
    return unwrap(box.__kwdefaults__["signal"](signalnum, handler))  # C's setter on this frame's value stack only


def _held_unwrap(handler: Any, /, *, _sealed_tools: Any = ()) -> Any:
    function_t, type_, wrapped, dict_t = _sealed_tools
    if type_(handler) is function_t and handler.__code__ is wrapped:
        held = handler.__kwdefaults__
        if type_(held) is dict_t and "_sealed_handler" in held:
            return held["_sealed_handler"]
    return handler


def _signal_get(signalnum: Any, /, *, _sealed_tools: Any = ()) -> Any:
    getsignal, unwrap = _sealed_tools
    return unwrap(getsignal(signalnum))


_SEALED_BOXES: list[Any] = []  # (box, the gate's code, the gate's tools) for the hook's `sealed_boxes`


def sealed_boxes() -> tuple[Any, ...]:
    """The boxes `seal_signal_handlers`, `seal_expat_handlers`, `seal_display_hook` and `seal_standard_streams` made, each as (box, the code of the only frame that may read it, that frame's
    `_sealed_tools`), for the hook."""
    return tuple(_SEALED_BOXES)


def seal_signal_handlers() -> str | None:
    """Make C's table of signal handlers hold Python functions only, C's setter out of the code's reach (above).
    Returns why it could not, or None."""
    import _signal
    import builtins

    setter, getter = vars(_signal).get("signal"), vars(_signal).get("getsignal")
    if (type(_signal) is not type(sys) or type(setter).__name__ != "builtin_function_or_method"
            or type(getter).__name__ != "builtin_function_or_method"):
        return "_signal is not the built-in module this bootstrap knows"
    function_t: Any = type(_signal_set)
    wrapped = next((const for const in _signal_set.__code__.co_consts if type(const) is type(_signal_set.__code__)),
                   None)
    if wrapped is None:
        return "the gate's wrapper has no code"
    box = function_t(_signal_box.__code__, {}, "signal", None, None)
    box.__kwdefaults__ = {"signal": setter}
    unwrap = function_t(_held_unwrap.__code__, {}, "getsignal", None, None)
    unwrap.__kwdefaults__ = {"_sealed_tools": (function_t, type, wrapped, dict)}
    gate = function_t(_signal_set.__code__, {}, "signal", None, None)
    tools = (box, function_t, type, builtins.callable, int, builtins.issubclass, int.__index__, unwrap)
    gate.__kwdefaults__ = {"_sealed_tools": tools}
    get_gate = function_t(_signal_get.__code__, {}, "getsignal", None, None)
    get_gate.__kwdefaults__ = {"_sealed_tools": (getter, unwrap)}
    gate.__doc__, get_gate.__doc__ = setter.__doc__, getter.__doc__
    vars(_signal).update({"signal": gate, "getsignal": get_gate})  # signal.py's own functions call these by name
    held = sys.getrefcount(setter) - 3  # the box's defaults, this frame's local and the call's argument
    del setter
    if held:
        return f"C's signal.signal is still held elsewhere ({held} more references)"
    _SEALED_BOXES.append((box, _signal_set.__code__, tools))
    return None


# `sys.displayhook` is read from the `sys` module's dict without a reference and called by `PRINT_EXPR`
# (CPython 3.11.7's ceval), with no audit event between, and the code's own code sets it anew from inside its own call
# through that dict, which nothing can take away: a C callable hook (`lst.count`, a bound method that alone held its
# list) whose item's `__eq__` set the hook back was freed with its list while the count went on over it, comparing
# the items of the list the code made next (a use after free: the seventieth round's lead, seventy-second round).
# `PRINT_EXPR` is only in the top-level code of a "single"-mode compile (`doctest`, `code.interact`, `codeop`), and
# `compile()` is the one maker of such code here (the hook refuses code objects made from parts, bytecode other than
# the stdlib's and compiles of AST objects). Sealed here: `builtins.compile` is a gate that hands C's compile no
# "single" mode but for an AST: it parses the source in that mode (the same errors), then compiles in "exec" mode a
# text in which each expression statement of the top-level code hands its value to
# `(lambda v: __import__("sys").displayhook(v))`, a Python call whose frame holds the hook while it runs (C's order:
# the value first, then the hook read). The gate normalises mode, flags and numbers to exact objects (nothing of the
# code's answers C again) and merges the caller's `__future__` flags itself (C would read the gate's frame). C's
# compile is in a box only the gate's frame may open (`sealed_boxes`, as C's signal setter). Changed for honest code:
# `compile()` is a Python function; a display of a "single" compile runs two Python frames deeper (a traceback
# through the hook shows `<lambda>`), its column offsets in tracebacks are those of the wrapped text, and
# `del sys.displayhook` then raises AttributeError instead of C's RuntimeError.
def _compile_box() -> None:
    """Holds C's `compile` as a default that no parameter of this code takes."""


def _compile(source: Any, filename: Any, mode: Any, flags: Any = 0, dont_inherit: Any = False, optimize: Any = -1,
             *, _feature_version: Any = -1, _sealed_tools: Any = ()) -> Any:
    box, type_, str_t, issubclass_, index_, getframe, displayed = _sealed_tools
    if issubclass_(type_(mode), str_t):
        mode = str_t.__add__(mode, "")  # an exact str: C reads its text, nothing of the code's answers it again
    flags, dont_inherit, optimize, feature = (index_(flags), index_(dont_inherit), index_(optimize),
                                              index_(_feature_version))
    if not dont_inherit:
        flags |= getframe(1).f_code.co_flags & 0x1FE0000  # PyCF_MASK: the caller's `__future__` features, as C's own
    if type_(mode) is str_t and mode == "single" and not flags & 0x0400:  # PyCF_ONLY_AST: an AST has no PRINT_EXPR
        if issubclass_(type_(source), str_t):
            source = str_t.__add__(source, "")  # the text C parses is the text displayed() wraps
        tree = box.__kwdefaults__["compile"](source, filename, mode, flags | 0x0400, 1, optimize,
                                             _feature_version=feature)
        source, mode = displayed(source, tree), "exec"
    return box.__kwdefaults__["compile"](source, filename, mode, flags, 1, optimize, _feature_version=feature)


_DISPLAY_OPEN, _DISPLAY_CLOSE = b'(lambda v: __import__("sys").displayhook(v))((', b"))"


def _displayed(source: Any, tree: Any) -> str:
    """The text of `source` in which each expression statement of the top-level code of `tree` (its "single"-mode
    AST) hands its value to the display hook, as PRINT_EXPR would."""
    import _ast

    if type(source) is not str:  # bytes C decoded by its coding cookie, as the import system does
        from importlib.util import decode_source

        source = decode_source(bytes(memoryview(source)))
    found: list[Any] = []
    pending = [tree]
    nested = (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)  # a code of their own: no PRINT_EXPR there
    while pending:
        node = pending.pop()
        for field in node._fields:
            value = getattr(node, field, None)
            for item in value if type(value) is list else (value,):
                if isinstance(item, _ast.Expr):
                    found.append(item)
                elif isinstance(item, (_ast.stmt, _ast.excepthandler, _ast.match_case)) \
                        and not isinstance(item, nested):
                    pending.append(item)
    lines = source.encode("utf-8", "surrogatepass").splitlines(keepends=True)  # the parser's offsets are UTF-8 bytes
    for node in sorted(found, key=lambda node: (node.lineno, node.col_offset), reverse=True):
        end = lines[node.end_lineno - 1]
        lines[node.end_lineno - 1] = end[:node.end_col_offset] + _DISPLAY_CLOSE + end[node.end_col_offset:]
        start = lines[node.lineno - 1]
        lines[node.lineno - 1] = start[:node.col_offset] + _DISPLAY_OPEN + start[node.col_offset:]
    return b"".join(lines).decode("utf-8", "surrogatepass")


def seal_display_hook() -> str | None:
    """Make `compile()` hand C no "single" mode, so that no PRINT_EXPR calls a display hook it does not hold, C's
    compile out of the code's reach (above). Returns why it could not, or None."""
    import builtins

    original: Any = vars(builtins).get("compile")
    if type(original).__name__ != "builtin_function_or_method" or original.__self__ is not builtins:
        return "builtins.compile is not the C function this bootstrap knows"
    function_t: Any = type(_compile)
    box = function_t(_compile_box.__code__, {}, "compile", None, None)
    box.__kwdefaults__ = {"compile": original}
    displayed = function_t(_displayed.__code__, {"__builtins__": builtins, "_DISPLAY_OPEN": _DISPLAY_OPEN,
                                                 "_DISPLAY_CLOSE": _DISPLAY_CLOSE}, "displayed", None, None)
    gate = function_t(_compile.__code__, {}, "compile", (0, False, -1), None)
    tools = (box, type, str, builtins.issubclass, _index, sys._getframe, displayed)
    gate.__kwdefaults__ = {"_feature_version": -1, "_sealed_tools": tools}
    gate.__module__, gate.__qualname__, gate.__doc__ = "builtins", "compile", original.__doc__
    builtins.compile = gate
    # The box's defaults, this frame's local, the call's argument, and the two copies of the `builtins` module's dict
    # C made at start (the interpreter's `builtins_copy` and the module's own copy for a second load, which no Python
    # code reads: `builtins` is served once here).
    held = sys.getrefcount(original) - 5
    del original
    if held:
        return f"C's compile is still held elsewhere ({held} more references)"
    _SEALED_BOXES.append((box, _compile.__code__, tools))
    return None


# C code of CPython 3.11.7 that reads a standard stream from the `sys` module's dict without a reference
# (`_PySys_GetAttr`) and goes on using it after code of the code's own ran (gh-130163, fixed upstream after 3.11):
# `print` writes each argument's `str()` and then the separator to the `sys.stdout` it read at its start, `input`
# calls `sys.stderr.flush()` and `sys.stdin.fileno()` and then writes the prompt and reads a line from the streams it
# read before, `sys.displayhook` writes a value's `repr()` and then a newline, and `faulthandler` asks the stream's
# `fileno()` and then its `flush()`. Code of the code's own that set the stream anew in between (an argument's
# `__str__`, a stream's own `write` or `flush`) freed the stream C went on calling: C called the `write` of a freed
# object (the stream's own method, with the freed block as `self`), or of the function the code made next in its
# block (a type confusion), and SIGSEGV on plain 3.11.7 (eightieth round). Sealed here: `print` and `sys.displayhook`
# (and `sys.__displayhook__`) are Python functions doing what C's do, holding the stream they write to in their frame
# (a gate calling C's `print` would read its box, an audited read, at every print: 56 us a call); `input` is a gate
# that takes references of its own to the three streams right before C reads them (nothing of the code's runs between:
# C converts none of its arguments first) and holds them for the whole call; `faulthandler`'s `enable`,
# `dump_traceback`, `dump_traceback_later` and `register` are gates that hand C the stream as an argument (their other
# arguments' conversions run the code's `__bool__`, `__float__` or `__index__` before C would read it). C's `input` and
# `faulthandler` functions are in a box only the gates' frames may open (`sealed_boxes`). Changed for honest code: an
# unknown keyword to `print` raises Python's own TypeError message.
# A key of the code's own in the `sys` dict that is not a str (its hash a stream's name) makes the dict compare keys by
# `__eq__`, so the code's code ran inside each of C's three reads and set `sys.stdin` anew between them, past the
# gate's references (SIGSEGV; eighty-first round): the `input` gate refuses to run while the dict holds such a key
# (honest code puts none there), and with exact str keys only C's reads run nothing of the code's.
def _streams_box() -> None:
    """Holds C's `input` and `faulthandler` functions as defaults that no parameter of this code takes."""


def _streams_held(*args: Any, _sealed_tools: Any = (), **named: Any) -> Any:
    box, name, stream, keys, type_, str_t, runtime_error = _sealed_tools
    for key in keys():  # a key of the code's own would run its `__eq__` inside C's reads (below): none may be there
        if type_(key) is not str_t:
            raise runtime_error("the sys module's dict holds a key that is not a str: input() refuses to read it")
    held = stream("stdin"), stream("stdout"), stream("stderr")  # what C reads next, held until it is done
    answer = box.__kwdefaults__[name](*args, **named)
    del held
    return answer


def _stream_given(*args: Any, _sealed_tools: Any = (), **named: Any) -> Any:
    box, name, stream, position, absent, runtime_error, len_ = _sealed_tools
    given = args[position] if len_(args) > position else named.get("file")
    if given is None:  # C would read sys.stderr after converting the other arguments: it gets the stream instead
        given = stream("stderr", absent)
        if given is absent or given is None:
            raise runtime_error("unable to get sys.stderr" if given is absent else "sys.stderr is None")
        if len_(args) > position:
            args = (*args[:position], given, *args[position + 1:])
        else:
            named["file"] = given
    return box.__kwdefaults__[name](*args, **named)


def _print(*args: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: Any = False,
           _sealed_tools: Any = ()) -> None:
    stream, absent, str_t, issubclass_, type_, runtime_error, type_error = _sealed_tools
    if file is None:
        file = stream("stdout", absent)  # held by this frame while the arguments' `__str__` and its own code run
        if file is absent:
            raise runtime_error("lost sys.stdout")
        if file is None:
            return
    for name, value in (("sep", sep), ("end", end)):
        if value is not None and not issubclass_(type_(value), str_t):
            raise type_error(f"{name} must be None or a string, not {type_(value).__name__:.200}")
    first = True
    for value in args:  # C's order: the stream's `write` looked up, then the text made, then written
        if not first:
            write = file.write
            write(" " if sep is None else str_t(sep))
        first = False
        write = file.write
        write(str_t(value))
    write = file.write
    write("\n" if end is None else str_t(end))
    if flush:
        file.flush()


def _display(value: Any, /, *, _sealed_tools: Any = ()) -> None:
    stream, modules, runtime_error, repr_, set_attr, lookup, unicode_encode_error = _sealed_tools
    if value is None:
        return
    builtins = modules.get("builtins")
    if builtins is None:
        raise runtime_error("lost builtins module")
    set_attr(builtins, "_", None)  # C's order: `_` cleared first, then the stream read
    out = stream("stdout")  # held by this frame while the value's repr and the stream's own code run
    if out is None:
        raise runtime_error("lost sys.stdout")
    write = out.write
    text = repr_(value)
    try:
        write(text)
    except unicode_encode_error:
        encoding = out.encoding
        encoded = repr_(value).encode(encoding, "backslashreplace")
        buffer = lookup(out, "buffer", None)
        if buffer is not None:
            buffer.write(encoded)
        else:
            out.write(encoded.decode(encoding, "strict"))
    out.write("\n")
    set_attr(builtins, "_", value)


FAULTHANDLER_FILE_POSITIONS = (("enable", 0), ("dump_traceback", 0), ("dump_traceback_later", 2), ("register", 1))


def seal_standard_streams() -> str | None:
    """Make `print`, `input`, `sys.displayhook` and `faulthandler` hold the standard streams they use (above), C's
    functions out of the code's reach. Returns why it could not, or None."""
    import builtins
    import faulthandler

    originals: dict[str, Any] = {"input": vars(builtins).get("input")}
    c_print = vars(builtins).get("print")
    originals.update({name: vars(faulthandler).get(name) for name, _ in FAULTHANDLER_FILE_POSITIONS})
    hook: Any = getattr(sys, "displayhook", None)
    if (any(type(function).__name__ != "builtin_function_or_method"
            for function in (*originals.values(), hook, c_print))
            or hook.__self__ is not sys or hook is not vars(sys).get("__displayhook__")):
        return "print, input, sys.displayhook or faulthandler is not the C function this bootstrap knows"
    function_t: Any = type(_streams_held)
    box = function_t(_streams_box.__code__, {}, "streams", None, None)
    box.__kwdefaults__ = originals
    stream = vars(sys).get  # the dict C reads the streams from (`interp->sysdict`), whatever `sys.modules` holds
    entries = []
    gate = function_t(_streams_held.__code__, {}, "input", None, None)
    tools: tuple[Any, ...] = (box, "input", stream, vars(sys).keys, type, str, RuntimeError)
    entries.append((box, _streams_held.__code__, tools))
    gate.__kwdefaults__ = {"_sealed_tools": tools}
    gate.__module__, gate.__qualname__, gate.__doc__ = "builtins", "input", originals["input"].__doc__
    builtins.input = gate
    printer = function_t(_print.__code__, {}, "print", None, None)
    printer.__kwdefaults__ = {"sep": " ", "end": "\n", "file": None, "flush": False,
                              "_sealed_tools": (stream, _ABSENT, str, issubclass, type, RuntimeError, TypeError)}
    printer.__module__, printer.__qualname__, printer.__doc__ = "builtins", "print", c_print.__doc__
    builtins.print = printer
    for name, position in FAULTHANDLER_FILE_POSITIONS:
        gate = function_t(_stream_given.__code__, {}, name, None, None)
        tools = (box, name, stream, position, _ABSENT, RuntimeError, len)
        entries.append((box, _stream_given.__code__, tools))
        gate.__kwdefaults__ = {"_sealed_tools": tools}
        gate.__module__, gate.__qualname__, gate.__doc__ = "faulthandler", name, originals[name].__doc__
        setattr(faulthandler, name, gate)
    display = function_t(_display.__code__, {}, "displayhook", None, None)
    display.__kwdefaults__ = {"_sealed_tools": (stream, sys.modules, RuntimeError, repr, setattr, getattr,
                                                UnicodeEncodeError)}
    display.__module__, display.__qualname__, display.__doc__ = "sys", "displayhook", hook.__doc__
    sys.displayhook = sys.__displayhook__ = display
    # Besides the box's defaults, this frame's dict, the loop's local and the call's argument (or this frame's local
    # and the argument): the two copies C made at start of the `builtins` module's dict (print, input) and of `sys`'s
    # (its display hook, twice), which no Python code reads.
    held = {name: sys.getrefcount(function) - 4 - (2 if name == "input" else 0) for name, function in originals.items()}
    held["displayhook"] = sys.getrefcount(hook) - 2 - 2
    held["print"] = sys.getrefcount(c_print) - 2 - 2
    del originals, hook, c_print
    if any(held.values()):
        return f"C's stream functions are still held elsewhere ({held})"
    _SEALED_BOXES.extend(entries)
    return None


# `__import__` of a relative dotted name without a `fromlist` (`__import__("a.b", globals(), None, None, 1)`) has CPython
# 3.11.7's `PyImport_ImportModuleLevelObject` build the parent's name (`to_return`), look it up in `sys.modules` and,
# where it is missing, free the name before it formats it into its KeyError ("%R not in sys.modules as expected": a
# use after free, fixed upstream after 3.11): the repr C makes of it takes the freed block where the two are one size
# class, and C reads the name from memory it is writing (`''kg82.a'`; eighty-second round). Sealed:
# `builtins.__import__` is a gate that runs `importlib`'s own Python `__import__` (which answers the same modules and
# raises a plain KeyError there), after C's argument checks (the level converted once by C's `__index__`, C's messages
# for a name that is no str, a negative level, an empty name, globals that are no dict) and with a false `fromlist`'s
# truth asked once; a module loaded already is answered as C answers it (the interpreter's own modules dict, a module
# not initialising, a `fromlist` only where it has no `__path__`), without importlib's frames (`datetime.strftime`
# imports `time` through `__import__` at every call). The interpreter's own `import_func` (what C hands
# `importlib._bootstrap._handle_fromlist`, which the code may replace) is set to the gate too, so import statements
# keep C's fast path (it compares the two; no statement has that shape). C's `__import__` is held by no Python object
# (eighty-third round): the eighty-second's gate held it in its tools, its own keyword defaults, refused to readers,
# but a gate's frame is the code's to read (a traceback through it, `f_back` from a callback it runs, a signal
# handler), and its locals held C's function: the shape ran C's code again.
# Changed for honest code: `builtins.__import__` is a Python function (its `__doc__` is C's); an `__import__` of a
# module not yet loaded, or of a relative name, runs importlib's Python twin of C's code; the code's rebinding of
# `sys.modules` is seen there (importlib reads the attribute).
def _import(name: Any, globals: Any = None, locals: Any = None, fromlist: Any = (), level: Any = 0, *,
            _sealed_tools: Any = ()) -> Any:
    (twin, loaded, audit, index, type_, issubclass_, str_t, dict_t, lookup, type_error, value_error,
     absent) = _sealed_tools
    level = index(level)  # C's conversion, once
    if not issubclass_(type_(name), str_t):
        raise type_error("module name must be a string")
    if level < 0:
        raise value_error("level must be >= 0")
    if level == 0 and not name:
        raise value_error("Empty module name")
    if level > 0 and not issubclass_(type_(globals), dict_t):
        raise type_error("globals must be a dict")
    if fromlist is None or not fromlist:  # C asks its truth once; importlib asks it again, in Python
        fromlist = ()
    if level == 0:  # C's answer for a module loaded already, without importlib's frames: `time.strftime`'s import
        module = loaded(name, absent)
        if module is not absent and module is not None and \
                not lookup(lookup(module, "__spec__", None), "_initializing", False):
            if fromlist and lookup(module, "__path__", absent) is absent:
                return module
            if not fromlist and "." not in name:
                return module
    audit("import", name, None, None, None, None)  # C's event before it loads (importlib's Python raises none)
    return twin(name, globals, locals, fromlist, level)


def seal_import() -> str | None:
    """Make `builtins.__import__` and the interpreter's `import_func` the gate above, C's `__import__` held by no
    Python object at all. Returns why it could not, or None."""
    import builtins

    original: Any = vars(builtins).get("__import__")
    twin: Any = getattr(sys.modules.get("_frozen_importlib"), "__import__", None)
    if type(original).__name__ != "builtin_function_or_method" or original.__self__ is not builtins or twin is None:
        return "__import__ is not the C function this bootstrap knows, or importlib's own is missing"
    get_state = ctypes.pythonapi.PyInterpreterState_Get
    get_state.restype, get_state.argtypes = ctypes.c_void_p, ()
    state = get_state()
    words = memoryview(ctypes.string_at(state, 1024 * _WORD)).cast("P")  # `import_func` is word 177 in 3.11.7
    listed = words.tolist()
    matches = listed.count(id(original))
    if matches != 1 or id(vars(sys)) not in listed or id(vars(builtins)) not in listed:
        return f"the interpreter's import_func is not where this bootstrap looks ({matches} matches)"
    function_t: Any = type(_import)
    tools = (twin, sys.modules.get, sys.audit, _index, type, issubclass, str, dict, getattr, TypeError, ValueError,
             object())  # the interpreter's own modules dict, whatever `sys.modules` is bound to later
    gate = function_t(_import.__code__, {}, "__import__", (None, None, (), 0), None)
    gate.__kwdefaults__ = {"_sealed_tools": tools}
    gate.__module__, gate.__qualname__, gate.__doc__ = "builtins", "__import__", original.__doc__
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(gate))  # the state's reference; C's original keeps the one it had
    ctypes.c_void_p.from_address(state + listed.index(id(original)) * _WORD).value = id(gate)
    builtins.__import__ = gate
    return None


# `pyexpat`'s parsers call each handler (`StartElementHandler`, `CharacterDataHandler`, ...) by a borrowed reference
# from the parser's table (CPython 3.11.7's `call_with_frame(..., self->handlers[i], ...)`), and setting the handler
# anew from inside its own call drops the table's reference: a C callable handler (`d.get`, a bound method that alone
# held its dict) whose key's `__eq__` set it anew was freed with its dict while the lookup went on, and the lookup
# compared the keys of the dict the code made next (the seventieth round's lead, seventy-first round). Sealed as the
# signal handlers are: each handler attribute of `xmlparser` is a descriptor of the bootstrap's whose `__set__` hands
# C's own descriptor any handler but None and a Python function wrapped in a Python function (`handler`, nested
# below, whose frame holds it while it runs; a handler that is not callable raises C's TypeError from there) and
# whose `__get__` unwraps; C's descriptors are kept in a box only these two gates' frames may open (`sealed_boxes`).
# `pyexpat` is multi-phase: a later load of its file is refused, as for every extension the bootstrap loaded.
# Changed for honest code: a handler that is no Python function runs one Python frame deeper.
def _expat_set(self: Any, parser: Any, handler: Any, /, *, _sealed_tools: Any = ()) -> None:
    box, function_t, type_, str_t, type_error = _sealed_tools
    name = self.name
    if type_(name) is not str_t:
        raise type_error("the handler's name must be a str")
    if handler is not None and type_(handler) is not function_t:
        def handler(*args: Any, _sealed_handler: Any = handler) -> Any:
            return _sealed_handler(*args)
    box.__kwdefaults__[name].__set__(parser, handler)  # C's descriptor on this frame's value stack only


def _expat_get(self: Any, parser: Any, owner: Any = None, /, *, _sealed_tools: Any = ()) -> Any:
    box, unwrap, type_, str_t, type_error = _sealed_tools
    if parser is None:
        return self
    name = self.name
    if type_(name) is not str_t:
        raise type_error("the handler's name must be a str")
    return unwrap(box.__kwdefaults__[name].__get__(parser, owner))


def _expat_delete(self: Any, parser: Any, /, *, _sealed_tools: Any = ()) -> None:
    runtime_error, = _sealed_tools
    raise runtime_error("Cannot delete attribute")  # C's own answer


def seal_expat_handlers() -> str | None:
    """Make `pyexpat`'s parsers hold the handlers they call (above). Returns why it could not, or None."""
    import pyexpat

    cls: Any = pyexpat.XMLParserType
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    names = sorted(name for name, value in cls.__dict__.items()
                   if "Handler" in name and type(value).__name__ == "getset_descriptor")
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or type.__subclasses__(cls)
            or len(names) < 20 or cls.__setattr__ is not object.__setattr__):
        return "pyexpat.xmlparser is not the C type this bootstrap knows"
    function_t: Any = type(_expat_set)
    code_t = type(_expat_set.__code__)
    wrapped = next((const for const in _expat_set.__code__.co_consts if type(const) is code_t), None)
    if wrapped is None:
        return "the gate's wrapper has no code"
    box = function_t(_signal_box.__code__, {}, "xmlparser", None, None)
    box.__kwdefaults__ = {name: cls.__dict__[name] for name in names}
    unwrap = function_t(_held_unwrap.__code__, {}, "unwrap", None, None)
    unwrap.__kwdefaults__ = {"_sealed_tools": (function_t, type, wrapped, dict)}
    set_tools = (box, function_t, type, str, TypeError)
    get_tools = (box, unwrap, type, str, TypeError)
    gates: dict[str, Any] = {}
    for code, tools, slot in ((_expat_set.__code__, set_tools, "__set__"), (_expat_get.__code__, get_tools, "__get__"),
                              (_expat_delete.__code__, (RuntimeError,), "__delete__")):
        gates[slot] = function_t(code, {}, slot, (None,) if slot == "__get__" else None, None)  # `owner`'s default
        gates[slot].__kwdefaults__ = {"_sealed_tools": tools}
    descriptor_t = type("handler", (), {"__slots__": ("name",), "__module__": "pyexpat", **gates})
    handlers: dict[str, Any] = {}
    for name in names:
        handlers[name] = object.__new__(descriptor_t)
        handlers[name].name = name
    _install_gates(cls, flags, handlers)
    _SEALED_BOXES.extend([(box, _expat_set.__code__, set_tools), (box, _expat_get.__code__, get_tools)])
    return None



# sqlite's factories (CPython 3.11.7's `_sqlite3`): a fetched row's text goes through the connection's `text_factory`
# (`PyObject_CallFunction(self->connection->text_factory, ...)`, for any factory but the exact `str`, `bytes` and
# `bytearray`, which C compares by identity) and each row through the cursor's `row_factory`
# (`pysqlite_cursor_iternext`), both called by borrowed references from their fields, which a plain attribute store sets
# anew (the types' T_OBJECT members): a factory `items.count` (a bound method, the only holder of its list) whose
# item's `__eq__` set `con.text_factory = str` was freed with its list while `list.count` walked it, and the count
# compared the items of the list the code made next (a use after free; the seventy-fourth round's lead). A Python
# function survives that (its frame holds it). Sealed here as the expat handlers are: the three attributes
# (`Connection.text_factory`, `Connection.row_factory`, `Cursor.row_factory`, the last of which `Connection.cursor`
# copies from the connection's in C) are descriptors of the bootstrap's (`sqlite3.factory`) whose `__set__` hands C's
# member None, a Python function, the exact `str`, `bytes` or `bytearray`, or anything else wrapped in a Python function
# of its own (its frame holds the factory while it runs), and whose `__get__` unwraps; C's members are in one box that
# only these two gates open. Deleting a factory is refused (C's member took the delete and left a NULL factory that the
# next cursor or fetch dereferenced). `_sqlite3` is loaded for this by the bootstrap, after `seal_sqlite_hooks` changed
# its method table, and only where its native file access is confined (elsewhere the hook refuses it); a second load
# of its file is refused, as for every extension the bootstrap loaded. Changed for honest code: a factory that is no
# Python function (`sqlite3.Row`, `dict`, a bound method) runs one Python frame deeper.
SQLITE_FACTORIES = (("Connection", "text_factory"), ("Connection", "row_factory"), ("Cursor", "row_factory"))


def _sqlite_factory_set(self: Any, owner: Any, factory: Any, /, *, _sealed_tools: Any = ()) -> None:
    box, function_t, type_, str_t, type_error, kept = _sealed_tools
    name = self.name
    if type_(name) is not str_t:
        raise type_error("the factory's name must be a str")
    if factory is not None and type_(factory) is not function_t:
        plain = False
        for exact in kept:  # C's identity fast paths: `str`, `bytes`, `bytearray`, never freed
            if factory is exact:
                plain = True
        if not plain:
            def factory(*args: Any, _sealed_handler: Any = factory) -> Any:
                return _sealed_handler(*args)
    box.__kwdefaults__[name].__set__(owner, factory)  # C's member on this frame's value stack only


def _sqlite_factory_get(self: Any, owner: Any, cls: Any = None, /, *, _sealed_tools: Any = ()) -> Any:
    box, unwrap, type_, str_t, type_error = _sealed_tools
    if owner is None:
        return self
    name = self.name
    if type_(name) is not str_t:
        raise type_error("the factory's name must be a str")
    return unwrap(box.__kwdefaults__[name].__get__(owner, cls))


def _sqlite_factory_delete(self: Any, owner: Any, /, *, _sealed_tools: Any = ()) -> None:
    attribute_error, = _sealed_tools
    raise attribute_error("a sqlite factory cannot be deleted in the sandbox (set None or a callable)")


def seal_sqlite_factories(confined: bool = True) -> str | None:
    """Make sqlite's connections and cursors hold the factories they call (above), loading `_sqlite3` where its
    native file access is `confined` (elsewhere the hook refuses it, and nothing is done). Returns why it could not, or
    None (also where `_sqlite3` does not load: nothing to seal)."""
    if not confined:
        return None
    try:
        _sqlite3 = _load_sqlite3()
    except ImportError:  # an interpreter built without sqlite, or its library missing: the code cannot load it either
        return None

    function_t: Any = type(_sqlite_factory_set)
    code_t = type(_sqlite_factory_set.__code__)
    wrapped = next((const for const in _sqlite_factory_set.__code__.co_consts if type(const) is code_t), None)
    if wrapped is None:
        return "the gate's wrapper has no code"
    classes: dict[str, Any] = {}
    for class_name, attribute in SQLITE_FACTORIES:
        cls = classes.setdefault(class_name, getattr(_sqlite3, class_name, None))
        if (type(cls) is not type or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or type.__subclasses__(cls)
                or type(cls.__dict__.get(attribute)).__name__ != "member_descriptor"
                or ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS).value != cls.__flags__):
            return f"sqlite3.{class_name} is not the C type this bootstrap knows"
    box = function_t(_signal_box.__code__, {}, "sqlite3", None, None)
    box.__kwdefaults__ = {f"{class_name}.{attribute}": classes[class_name].__dict__[attribute]
                          for class_name, attribute in SQLITE_FACTORIES}
    unwrap = function_t(_held_unwrap.__code__, {}, "unwrap", None, None)
    unwrap.__kwdefaults__ = {"_sealed_tools": (function_t, type, wrapped, dict)}
    set_tools = (box, function_t, type, str, TypeError, (str, bytes, bytearray))
    get_tools = (box, unwrap, type, str, TypeError)
    gates: dict[str, Any] = {}
    for code, tools, slot in ((_sqlite_factory_set.__code__, set_tools, "__set__"),
                              (_sqlite_factory_get.__code__, get_tools, "__get__"),
                              (_sqlite_factory_delete.__code__, (AttributeError,), "__delete__")):
        gates[slot] = function_t(code, {}, slot, (None,) if slot == "__get__" else None, None)  # `cls`'s default
        gates[slot].__kwdefaults__ = {"_sealed_tools": tools}
    descriptor_t = type("factory", (), {"__slots__": ("name",), "__module__": "sqlite3", **gates})
    for class_name in classes:
        factories: dict[str, Any] = {}
        for owner_name, attribute in SQLITE_FACTORIES:
            if owner_name == class_name:
                factories[attribute] = object.__new__(descriptor_t)
                factories[attribute].name = f"{class_name}.{attribute}"
        cls = classes[class_name]
        _install_gates(cls, ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS), factories)
    _SEALED_BOXES.extend([(box, _sqlite_factory_set.__code__, set_tools),
                          (box, _sqlite_factory_get.__code__, get_tools)])
    return None


# sqlite's statement cache (CPython 3.11.7's `_sqlite3`): a cursor's `execute` asks the connection's statement cache for
# the statement of its SQL by a borrowed reference from the connection's field (`get_statement_from_cache`:
# `self->connection->statement_cache`), a C `functools._lru_cache_wrapper` that the connection alone holds, which
# `close()` or `__init__` run again on the connection drops, and C uses what it answers as a statement without looking
# at its type. The cache hashes its key (a tuple holding the SQL: a `str` subclass of the code's own runs its
# `__hash__`): a `__hash__` that closed the connection freed the cache under its own C code, which went on reading its
# freed fields (a NULL dictionary: SIGSEGV on plain 3.11.7; a refill of the code's own would forge one). The cache is
# whatever `functools.lru_cache` returns (the function `_sqlite3` keeps in its module state since it loaded, which
# reads `functools`' module dict, the code's to set), and it answers what the connection's `__call__` answers (a
# subclass's own): an int taken for a statement crashed plain 3.11.7 (seventy-seventh round). Sealed here: `_sqlite3`'s
# state holds a bound method of the bootstrap's instead of `functools.lru_cache` (its one slot, found by that
# function's identity, rewritten with the reference counted), which makes each connection's cache a bound method whose
# frame holds C's `_lru_cache_wrapper` (the C type taken before the code runs) while it runs and which answers C only
# an exact `sqlite3.Statement` (anything else: sqlite's ProgrammingError). Each holds its tools in the tuple it is
# bound to (a method's `__self__` is read-only): nothing the code can reach changes them. Changed for honest code:
# each `execute` asks its statement through one Python frame more.
def _sqlite_statement_cache(tools: Any, maxsize: Any, /) -> Any:
    method_t = tools[0]
    return method_t(tools[1], (tools, maxsize))  # `_sqlite_statement_maker`, bound to this size


def _sqlite_statement_maker(bound: Any, connection: Any, /) -> Any:
    tools, maxsize = bound
    method_t, _, statement, lru_wrapper_t, cache_info_t, statement_t, type_, error = tools
    made = lru_wrapper_t(connection, maxsize, False, cache_info_t)
    return method_t(statement, (made, statement_t, type_, error))


def _sqlite_statement(bound: Any, sql: Any, /) -> Any:
    made, statement_t, type_, error = bound  # this frame holds the C cache while it runs
    answered = made(sql)
    if type_(answered) is not statement_t:
        raise error("a sqlite connection's __call__ must answer a sqlite3.Statement in the sandbox")
    return answered


# `_sqlite3` takes `functools.lru_cache` when it loads (its module state's statement-cache maker, which
# `seal_sqlite_statement_cache` replaces) and nothing else of `functools`. Importing `functools` for it cost ~3 ms of the
# child's CPU a run (`functools` itself, `collections`, `keyword`, `reprlib`), the largest of the seals' costs, for a
# function the seal overwrites before any code runs. Where `functools` is not loaded yet, `_sqlite3` loads with a
# stand-in module of that name in `sys.modules` (removed right after: the code's own `import functools` loads the
# real module, as in a run without the hook), whose `lru_cache` makes the same C cache `functools.lru_cache(maxsize)`
# makes (`_functools._lru_cache_wrapper`, not typed), its `cache_info()` the same `functools._CacheInfo` (imported when
# asked). Where the statement-cache seal runs (every run with the hook) no connection ever uses it; where it could
# not, sqlite caches statements as with `functools.lru_cache`.
_SQLITE_LRU_CACHE: list[Any] = []  # what `_sqlite3` took as `lru_cache` when it loaded here, and its cache-info type


def _sqlite_lru_cache(maxsize: Any, /, *, _sealed_tools: Any = ()) -> Any:
    lru_wrapper_t, cache_info_t = _sealed_tools

    def decorating(user_function: Any, /) -> Any:
        return lru_wrapper_t(user_function, maxsize, False, cache_info_t)
    return decorating


def _sqlite_cache_info(hits: Any, misses: Any, maxsize: Any, currsize: Any, /) -> Any:
    import functools

    return functools._CacheInfo(hits, misses, maxsize, currsize)


def _load_sqlite3() -> Any:
    """`_sqlite3`, loaded here (without `functools` where that is not loaded yet: above) unless it is loaded already;
    raises ImportError where it does not load. Where `_sqlite3` loaded otherwise (or with `functools` loaded),
    `_SQLITE_LRU_CACHE` names `functools`' own."""
    if "_sqlite3" in sys.modules or "functools" in sys.modules:
        import _sqlite3
        if not _SQLITE_LRU_CACHE:
            import functools

            _SQLITE_LRU_CACHE[:] = (functools.lru_cache, functools._CacheInfo)
        return _sqlite3
    import _functools

    function_t: Any = type(_sqlite_lru_cache)
    cache_info = function_t(_sqlite_cache_info.__code__, {}, "cache_info", None, None)
    maker = function_t(_sqlite_lru_cache.__code__, {}, "lru_cache", None, None)
    maker.__kwdefaults__ = {"_sealed_tools": (_functools._lru_cache_wrapper, cache_info)}
    stand_in = type(sys)("functools")
    stand_in.lru_cache = maker  # type: ignore[attr-defined]
    sys.modules["functools"] = stand_in
    try:
        import _sqlite3
    finally:
        if sys.modules.get("functools") is stand_in:
            del sys.modules["functools"]
    _SQLITE_LRU_CACHE[:] = (maker, cache_info)
    return _sqlite3


def seal_sqlite_statement_cache(confined: bool = True) -> str | None:
    """Make sqlite's connections hold the statement cache they ask while it runs, and take statements only from it
    (above), where `_sqlite3` loads (`confined`, as for `seal_sqlite_factories`). Returns why it could not, or None
    (also where `_sqlite3` does not load: nothing to seal)."""
    if not confined:
        return None
    try:
        _sqlite3 = _load_sqlite3()
    except ImportError:
        return None
    import _functools
    import types

    definition = ctypes.c_void_p.from_address(id(_sqlite3) + _MODULE_DEF).value
    state = ctypes.c_void_p.from_address(id(_sqlite3) + _MODULE_STATE).value
    if (type(_sqlite3) is not type(sys) or not definition or not state
            or ctypes.string_at(ctypes.c_void_p.from_address(definition + _DEF_NAME).value or 0) != b"_sqlite3"):
        return "_sqlite3 is not the module this bootstrap knows"
    size = ctypes.c_ssize_t.from_address(definition + _DEF_SIZE).value
    taken, cache_info_t = _SQLITE_LRU_CACHE  # the `lru_cache` `_sqlite3` took when it loaded, its cache-info type
    slots = [state + i for i in range(0, size - size % _WORD, _WORD)
             if ctypes.c_size_t.from_address(state + i).value == id(taken)]
    if len(slots) != 1 or type(taken) is not type(_sqlite_statement_cache):
        return "_sqlite3's state does not hold functools.lru_cache as this bootstrap knows"
    probe = _sqlite3.connect(":memory:")  # a statement's type: `_sqlite3` names it nowhere
    statement_t = type(probe("select 1"))
    probe.close()
    function_t: Any = type(_sqlite_statement_cache)
    made = [function_t(gate.__code__, {}, gate.__name__, None, None)
            for gate in (_sqlite_statement_cache, _sqlite_statement_maker, _sqlite_statement)]
    tools = (types.MethodType, made[1], made[2], _functools._lru_cache_wrapper, cache_info_t, statement_t,
             type, _sqlite3.ProgrammingError)
    cache = types.MethodType(made[0], tools)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(cache))  # the state's reference, which the module's clear drops
    ctypes.c_size_t.from_address(slots[0]).value = id(cache)  # the old function keeps the reference it had
    return None


# cProfile's C profiler (CPython 3.11.7's `_lsprof`) calls a timer of the code's own (`Profiler(timer)`) at every
# profiled call and return by a borrowed reference from its field (`CallExternalTimer`: `pObj->externalTimer`), and
# `__init__` run again on a live profiler sets the field anew, dropping the old timer: a timer `items.__hash__` (a
# method-wrapper, the only holder of its tuple) whose first item's `__hash__` ran `profiler.__init__(...)` was freed
# with its tuple while `tuplehash` walked it, and the hash went on over the items of the tuple the code made next (a use
# after free; seventy-sixth round). A Python function survives that (its frame holds it). Sealed here as the signal
# handlers are: the C type's `__init__` is a gate that hands C's any timer other than None or a Python function wrapped
# in a Python function of its own (its frame holds the timer while it runs), C's `__init__` in a box only the gate
# opens. The profiler answers no attribute that shows its timer, so nothing unwraps. Changed for honest code: a timer
# that is no Python function (`time.perf_counter`, a bound method) runs through one Python frame more, which the
# profiler does not profile (its callback pauses profiling while it asks the timer).
def _profiler_init(self: Any, /, *args: Any, _sealed_tools: Any = (), **named: Any) -> None:
    box, function_t, type_, len_ = _sealed_tools
    given = [*args]  # the gate's own list: nothing of the code's can change it meanwhile
    if len_(given):
        held = given[0]
        if held is not None and type_(held) is not function_t:
            def timer(*, _sealed_handler: Any = held) -> Any:
                return _sealed_handler()
            given[0] = timer
    if "timer" in named:  # a dict made for this call
        held = named["timer"]
        if held is not None and type_(held) is not function_t:
            def timer(*, _sealed_handler: Any = held) -> Any:
                return _sealed_handler()
            named["timer"] = timer
    box.__kwdefaults__["__init__"](self, *given, **named)  # C's init on this frame's value stack only


def seal_profiler_timer() -> str | None:
    """Make cProfile's C profiler hold the timer it calls (above). Returns why it could not, or None."""
    import _lsprof

    cls: Any = _lsprof.Profiler
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or type(cls.__dict__.get("__init__")).__name__ != "wrapper_descriptor"):
        return "_lsprof.Profiler is not the C type this bootstrap knows"  # (subclasses follow the gate: its slot)
    function_t: Any = type(_profiler_init)
    box = function_t(_signal_box.__code__, {}, "_lsprof", None, None)
    box.__kwdefaults__ = {"__init__": cls.__dict__["__init__"]}
    tools = (box, function_t, type, len)
    gate = function_t(_profiler_init.__code__, {}, "__init__", None, None)
    gate.__kwdefaults__ = {"_sealed_tools": tools}
    gate.__doc__ = cls.__dict__["__init__"].__doc__
    _install_gates(cls, flags, {"__init__": gate})
    _SEALED_BOXES.append((box, _profiler_init.__code__, tools))
    return None


# `csv.reader` (CPython 3.11.7's `Reader_iternext`) starts each row with a fresh list of fields in its own field,
# steps its input iterator, and appends to that field as it parses the line; it takes the list and leaves NULL when
# the row is done. An input whose `__next__` asks the same reader for a row (`next(reader)`) has the inner call take
# the list and leave NULL, and the outer call goes on appending to NULL: SIGSEGV (gh-145105, fixed upstream after
# 3.11; seventy-ninth round). Sealed here: `_csv.reader` (and `csv.reader`) is a gate that hands C's reader, in a box
# only the gate opens, a `map` of a step function of the bootstrap's over a generator that steps the code's input; a
# reader asked for a row from inside its own input's `__next__` meets that generator running and is refused
# (RuntimeError) before C's step touches its fields. The generator yields a marker at the input's end, which the step
# turns into the end C sees, so a reader asked again after the end asks its input again, as C's does (a file that grew).
def _csv_lines(source: Any, next_: Any, stop: Any, end: Any, /) -> Any:
    while True:
        try:
            line = next_(source)
        except stop:
            line = end
        yield line


def _csv_step(lines: Any, /, *, _sealed_tools: Any = ()) -> Any:
    next_, stop, end, refused = _sealed_tools
    if lines.gi_running:
        raise refused("csv.reader was asked for a row from inside its own input's __next__ (refused in the sandbox: "
                      "CPython 3.11's reader would append to a list it no longer holds)")
    line = next_(lines)
    if line is end:
        raise stop
    return line


def _csv_reader(*args: Any, _sealed_tools: Any = (), **named: Any) -> Any:
    box, lines_made, step, map_, repeat_, iter_, len_, next_, stop, end = _sealed_tools
    given = [*args]  # the gate's own list: nothing of the code's can change it meanwhile
    if 1 <= len_(given) <= 2:  # C's own errors for any other count
        given[0] = map_(step, repeat_(lines_made(iter_(given[0]), next_, stop, end)))
    return box.__kwdefaults__["reader"](*given, **named)  # C's reader on this frame's value stack only


def seal_csv_reader() -> str | None:
    """Make `csv.reader` refuse a row asked from inside its own input's `__next__` (above), loading `_csv`. Returns
    why it could not, or None."""
    import itertools

    try:
        import _csv
    except ImportError:  # an interpreter built without it: the code cannot load it either
        return None
    made = vars(_csv).get("reader")
    if type(made).__name__ != "builtin_function_or_method" or getattr(made, "__self__", None) is not _csv:
        return "_csv.reader is not the C function this bootstrap knows"
    function_t: Any = type(_csv_reader)
    box = function_t(_signal_box.__code__, {}, "_csv", None, None)
    box.__kwdefaults__ = {"reader": made}
    end = object()
    lines_made = function_t(_csv_lines.__code__, {}, "lines", None, None)
    step = function_t(_csv_step.__code__, {}, "step", None, None)
    step.__kwdefaults__ = {"_sealed_tools": (next, StopIteration, end, RuntimeError)}
    tools = (box, lines_made, step, map, itertools.repeat, iter, len, next, StopIteration, end)
    gate = function_t(_csv_reader.__code__, {}, "reader", None, None)
    gate.__kwdefaults__ = {"_sealed_tools": tools}
    gate.__doc__, gate.__module__, gate.__qualname__ = made.__doc__, "_csv", "reader"
    _csv.reader = gate  # type: ignore[attr-defined]
    if "csv" in sys.modules:
        sys.modules["csv"].reader = gate  # type: ignore[attr-defined]
    _SEALED_BOXES.append((box, _csv_reader.__code__, tools))
    return None


# `itertools.groupby` (CPython 3.11; gh-143543 and gh-146613, fixed in later releases only) compares its target key
# with the current one by borrowed references, in `groupby.__next__` and in its groups' `__next__`: a key's `__eq__`
# (Python code of the code's own) that advanced the same groupby (or set its state, `__setstate__`) replaced both keys,
# freeing the one C still held, and answered NotImplemented, so the other key's `__eq__` was asked next with the freed
# key as its argument; refilled as a bytearray buffer of the code's own, a forged bytearray header over all memory (no
# audit event; fifty-fifth round). Sealed here: the C type makes no instance any more (its `__new__`, set through
# `type.__setattr__` so the type's slot follows, answers an iterator of the same behaviour written in Python, whose
# frames hold every key they compare: C's order, C's identity shortcut, C's errors; its classes are made at the first
# call) and has no `__setstate__`; an instance made by `object.__new__` has no iterator (a NULL one: a crash of the
# code's own at most). Changed for honest code: the iterator and its groups are not instances of the C types (their
# reprs are the same), and do not pickle.
def _groupby_new(cls: Any, iterable: Any, key: Any = None, *, _sealed_tools: Any = ()) -> Any:
    made, build, new, iter_, absent = _sealed_tools
    if not made:  # the classes are made at the first call (a run that groups nothing pays nothing)
        made.extend(build())
    group = new(made[1])
    group.it, group.keyfunc = iter_(iterable), key
    group.tgtkey = group.currkey = group.currvalue = absent
    group.currgrouper = None
    return group


def _groupby_classes(type_: Any = type, methods: Any = ()) -> Any:
    grouper_next, groupby_next, own_iter = methods
    grouper_t = type_("_grouper", (), {"__slots__": ("parent", "tgtkey"), "__module__": "itertools",
                                       "__iter__": own_iter, "__next__": grouper_next})
    groupby_t = type_("groupby", (), {
        "__slots__": ("it", "keyfunc", "tgtkey", "currkey", "currvalue", "currgrouper"), "__module__": "itertools",
        "__iter__": own_iter, "__next__": groupby_next})
    return grouper_t, groupby_t


def _groupby_step(group: Any, next_: Any = None) -> None:
    value = next_(group.it)  # StopIteration ends the iteration, as C's
    key = value if group.keyfunc is None else group.keyfunc(value)
    group.currvalue = value
    group.currkey = key


def _groupby_next(self: Any, /, *, _sealed_tools: Any = ()) -> Any:
    made, new, step, absent = _sealed_tools
    self.currgrouper = None
    while True:
        current = self.currkey
        if current is not absent:
            target = self.tgtkey
            if target is absent or not (target is current or target == current):  # both held by this frame
                break
        step(self)
    self.tgtkey = self.currkey
    grouper = new(made[0])
    grouper.parent, grouper.tgtkey = self, self.tgtkey
    self.currgrouper = grouper
    return self.currkey, grouper


def _grouper_next(self: Any, /, *, _sealed_tools: Any = ()) -> Any:
    step, absent, stop = _sealed_tools
    parent = self.parent
    if parent.currgrouper is not self:
        raise stop
    if parent.currvalue is absent:
        step(parent)
    target, current = self.tgtkey, parent.currkey
    if not (target is current or target == current):  # both held by this frame
        raise stop
    value = parent.currvalue
    parent.currvalue = absent
    return value


def _own_iter(self: Any) -> Any:
    return self


def seal_groupby() -> str | None:
    """Make `itertools.groupby` answer iterators whose frames hold the keys they compare (above). Returns why it
    could not, or None."""
    import itertools

    cls: Any = itertools.groupby
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or type.__subclasses__(cls)
            or type(cls.__dict__.get("__setstate__")).__name__ != "method_descriptor"
            or type(cls.__dict__.get("__new__")).__name__ != "builtin_function_or_method"):
        return "itertools.groupby is not the C type this bootstrap knows"
    function_t: Any = type(_own_iter)
    absent, new, made = object(), object.__new__, []  # type: ignore[var-annotated]
    step = function_t(_groupby_step.__code__, {}, "_groupby_step", (next,))
    grouper_next = function_t(_grouper_next.__code__, {}, "__next__", None, None)
    grouper_next.__kwdefaults__ = {"_sealed_tools": (step, absent, StopIteration)}
    groupby_next = function_t(_groupby_next.__code__, {}, "__next__", None, None)
    groupby_next.__kwdefaults__ = {"_sealed_tools": (made, new, step, absent)}
    build = function_t(_groupby_classes.__code__, {}, "_groupby_classes", (
        type, (grouper_next, groupby_next, function_t(_own_iter.__code__, {}, "__iter__"))))
    gate = function_t(_groupby_new.__code__, {}, "__new__", (None,), None)
    gate.__kwdefaults__ = {"_sealed_tools": (made, build, new, iter, absent)}
    _install_gates(cls, flags, {"__new__": gate}, ("__setstate__",))  # `tp_new` follows: no C groupby is made
    return None


# `itertools.accumulate` (CPython 3.11) passes its running total to the addition (`PyNumber_Add`) or to the code's
# function (`operator.add`...) by a borrowed reference. A value whose type subclasses the total's has its reflected
# `__radd__` asked first, which advances the same accumulate again (its total replaced) and answers NotImplemented:
# the total is freed as that frame returns, and C goes on with it, asking the total's own `__add__` with the freed
# total as `self`, which the code then holds: SIGSEGV, or an object the code forges in the freed block (sixtieth
# round). Sealed here: the C type makes no instance (its `__new__`, set through `type.__setattr__`, answers a generator
# named `accumulate` whose frame holds the total while it adds, in C's order: `initial` first, then the iterable; a
# generator run again from inside its own addition raises ValueError). Changed for honest code: the iterator is a
# generator, no instance of the C type, and does not pickle.
def _accumulate_new(cls: Any, iterable: Any, func: Any = None, *, initial: Any = None, _sealed_tools: Any = ()) -> Any:
    steps, iter_ = _sealed_tools
    return steps(iter_(iterable), func, initial)  # C's TypeError for what is not iterable, at once


def _accumulate_steps(it: Any, func: Any, initial: Any, next_: Any = None, add: Any = None, stop: Any = None) -> Any:
    total = initial  # held by this frame while the addition runs the code's own code
    if initial is None:
        try:
            total = next_(it)
        except stop:
            return
    yield total
    for value in it:
        total = add(total, value) if func is None else func(total, value)
        yield total


def seal_accumulate() -> str | None:
    """Make `itertools.accumulate` answer generators whose frames hold the total they add to (above). Returns why it
    could not, or None."""
    import _operator
    import itertools

    cls: Any = itertools.accumulate
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or type.__subclasses__(cls)
            or type(cls.__dict__.get("__new__")).__name__ != "builtin_function_or_method"):
        return "itertools.accumulate is not the C type this bootstrap knows"
    function_t: Any = type(_accumulate_new)
    steps = function_t(_accumulate_steps.__code__, {}, "accumulate", (next, _operator.add, StopIteration))
    steps.__qualname__ = "accumulate"
    gate = function_t(_accumulate_new.__code__, {}, "__new__", (None,), None)
    gate.__kwdefaults__ = {"initial": None, "_sealed_tools": (steps, iter)}
    # the type's `tp_new` follows: no C accumulate is made
    _install_gates(cls, flags, {"__new__": gate}, ("__setstate__", "__reduce__"))
    return None



# `itertools.islice` and `itertools.zip_longest` (CPython 3.11) step their source iterators by borrowed references
# (`islice_next` keeps `lz->it` in a local across its skipping loop; `zip_longest_next` takes each iterator from its
# tuple) while the source's `__next__` (Python code of the code's own) may step the same islice or zip_longest again.
# That inner step ends it (the source raises StopIteration): islice drops its source (`Py_CLEAR(lz->it)`), zip_longest
# takes the iterator out of its tuple and drops it, so the source lives on only in the outer `__next__`'s frame, freed
# as that frame returns. islice then went on stepping the freed source: its `__next__` ran with the freed block as
# `self` (a dangling object the code holds); zip_longest, where the outer step ended the source too, dropped it a
# second time, taking one reference from whatever object had taken the freed block (sixty-third round). Sealed here:
# neither C type makes an instance (their `__new__`, set through `type.__setattr__`, answers a generator named after
# the type, whose frame holds the source iterators while it steps them, with C's argument checks, errors, order of
# conversions and consumption; a generator stepped again from inside its own step raises ValueError). Changed for
# honest code: the iterators are generators, no instances of the C types, and do not pickle.
_SLICE_ERRORS = ("Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.",
                 "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.",
                 "Step for islice() must be a positive integer or None.")


def _islice_number(value: Any, index: Any = _index, type_error: Any = TypeError, largest: int = sys.maxsize) -> Any:
    """C's `PyNumber_AsSsize_t(value, PyExc_OverflowError)` for islice, or None where C's answer is -1 with an error
    (not a number, or out of a Py_ssize_t's range), which islice clears."""
    try:
        number = index(value)
    except type_error:
        return None
    return number if -largest - 1 <= number <= largest else None


def _islice_new(cls: Any, *args: Any, _sealed_tools: Any = (), **named: Any) -> Any:
    steps, iter_, number, value_error, type_error, len_, errors = _sealed_tools
    if named:
        raise type_error("islice() takes no keyword arguments")
    count = len_(args)
    if count < 2:
        raise type_error(f"islice expected at least 2 arguments, got {count}")
    if count > 4:
        raise type_error(f"islice expected at most 4 arguments, got {count}")
    start, stop, step = 0, -1, 1
    if count > 2 and args[1] is not None:  # C clears the start's error: an index below 0, refused below
        start = number(args[1])
        if start is None:
            start = -1
    given_stop = args[1] if count == 2 else args[2]
    if given_stop is not None:
        stop = number(given_stop)
        if stop is None or stop == -1:
            raise value_error(errors[0])
    if start < 0 or stop < -1:
        raise value_error(errors[1])
    if count == 4 and args[3] is not None:
        step = number(args[3])
        if step is None:
            step = -1
    if step < 1:
        raise value_error(errors[2])
    return steps(iter_(args[0]), start, stop, step)  # C's TypeError for what is not iterable, at once


def _islice_steps(it: Any, start: Any, stop: Any, step: Any, next_: Any = None, stop_iteration: Any = None,
                  zip_: Any = None, range_: Any = None) -> Any:
    done = 0  # `it` held by this frame (and by the zip below) while its `__next__` runs the code's own code
    try:
        while done < start:  # C skips to the start at the first step, whatever the stop
            next_(it)
            done += 1
    except stop_iteration:
        return
    if step == 1:  # the usual slice: the loop (or a zip that asks the range first, as C stops) steps the source
        if stop == -1:
            for item in it:
                yield item
        elif done < stop:
            for _, item in zip_(range_(stop - done), it):
                yield item
        return
    ahead = done
    while stop == -1 or done < stop:
        try:
            while done < ahead:
                next_(it)
                done += 1
            if stop != -1 and done >= stop:
                return
            item = next_(it)
        except stop_iteration:
            return
        done += 1
        ahead += step
        if stop != -1 and ahead > stop:
            ahead = stop
        yield item


def _zip_longest_new(cls: Any, *args: Any, _sealed_tools: Any = (), **named: Any) -> Any:
    steps, iter_, tuple_, type_error = _sealed_tools
    fill = None
    for key in named:
        if key != "fillvalue":
            raise type_error("zip_longest() got an unexpected keyword argument")
        fill = named[key]
    return steps(tuple_([iter_(arg) for arg in args]), fill)  # C's TypeError for what is not iterable, at once


def _zip_longest_steps(its: Any, fill: Any, next_: Any = None, stop_iteration: Any = None, list_: Any = None,
                       tuple_: Any = None, len_: Any = None, range_: Any = None) -> Any:
    active, its = len_(its), list_(its)  # every source held by this frame while its `__next__` runs
    if not active:
        return
    while True:
        values = []
        for place in range_(len_(its)):
            it = its[place]
            if it is None:
                values.append(fill)
                continue
            try:
                values.append(next_(it))
            except stop_iteration:
                active -= 1
                if not active:
                    return
                its[place] = None
                values.append(fill)
        yield tuple_(values)


def seal_reentered_iterators() -> str | None:
    """Make `itertools.islice` and `itertools.zip_longest` answer generators whose frames hold the iterators they step
    (above). Returns why it could not, or None."""
    import itertools

    function_t: Any = type(_islice_new)
    made = {
        "islice": (_islice_new, _islice_steps, (next, StopIteration, zip, range)),
        "zip_longest": (_zip_longest_new, _zip_longest_steps, (next, StopIteration, list, tuple, len, range)),
    }
    for name, (new, step_code, step_tools) in made.items():
        cls: Any = getattr(itertools, name)
        flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
        if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or type.__subclasses__(cls)
                or type(cls.__dict__.get("__new__")).__name__ != "builtin_function_or_method"):
            return f"itertools.{name} is not the C type this bootstrap knows"
        steps = function_t(step_code.__code__, {}, name, step_tools)
        steps.__qualname__ = name
        gate = function_t(new.__code__, {}, "__new__", None, None)
        if name == "islice":
            number = function_t(_islice_number.__code__, {}, "_islice_number", (_index, TypeError, sys.maxsize))
            tools: tuple[Any, ...] = (steps, iter, number, ValueError, TypeError, len, _SLICE_ERRORS)
        else:
            tools = (steps, iter, tuple, TypeError)
        gate.__kwdefaults__ = {"_sealed_tools": tools}
        # the type's `tp_new` follows: no C instance is made
        _install_gates(cls, flags, {"__new__": gate}, ("__setstate__", "__reduce__"))
    return None

# `itertools.count` (CPython 3.11) holds its count, where it is no exact int of the machine's size (`long_cnt`, the slow
# mode), by the same borrowed reference while it adds the step: a step whose type subclasses the count's has its
# `__radd__` asked first, which advances the same count (handing the code the old count, which it drops) and answers
# NotImplemented; the count is freed as that frame returns and C asks its `__add__` and returns it: a dangling
# object (sixtieth round). Sealed here: a count counts exact ints, bools, floats and complex numbers only, whose
# additions run no code of the code's own: `__init__` is a gate that refuses any other start or step (TypeError; C's
# `__new__` has made the count by then and run nothing of the code's), `__new__` leaves the type's dict (its slot stays
# C's, so `count(...)` makes the count and runs the gate; `count.__new__(count, ...)` meets `object.__new__`, which
# refuses), and the type takes no subclass. Changed for honest code: `count(Fraction(1, 2))` or a Decimal count raises
# TypeError (`(start + i * step for i in count())` counts them).
def _count_init(self: Any, start: Any = 0, step: Any = 1, *, _sealed_tools: Any = ()) -> None:
    plain, type_, type_error = _sealed_tools
    if type_(start) not in plain or type_(step) not in plain:
        raise type_error("itertools.count counts ints, floats and complex numbers in the sandbox")


def seal_count() -> str | None:
    """Make `itertools.count` count plain numbers only (above). Returns why it could not, or None."""
    import itertools

    modified = ctypes.pythonapi.PyType_Modified
    modified.argtypes, modified.restype = (ctypes.py_object,), None
    cls: Any = itertools.count
    held = gc.get_referents(cls.__dict__)
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (len(held) != 1 or type(held[0]) is not dict or flags.value != cls.__flags__ or type.__subclasses__(cls)
            or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or "__init__" in held[0]
            or type(held[0].get("__new__")).__name__ != "builtin_function_or_method"):
        return "itertools.count is not the C type this bootstrap knows"
    function_t: Any = type(_count_init)
    gate = function_t(_count_init.__code__, {}, "__init__", (0, 1), None)
    gate.__kwdefaults__ = {"_sealed_tools": ((int, bool, float, complex), type, TypeError)}
    # `tp_init` follows: every count made by a call runs the gate; no subclass
    _install_gates(cls, flags, {"__init__": gate}, cleared=_TPFLAGS_BASETYPE)
    del held[0]["__new__"]  # the slot stays C's; the attribute is object's, which refuses to make a count
    modified(cls)
    try:
        cls.__new__(cls, 0.5)
    except TypeError:
        return None
    return "itertools.count.__new__ stayed callable"


# `atexit.unregister` (CPython 3.11; gh-112127, fixed in 3.12 and later only) compares each registered function with
# its argument by a borrowed reference: an argument whose type subclasses the function's has its own `__eq__` asked
# first, which clears the registry (`atexit._clear()`, or unregisters again) and answers NotImplemented, so the function
# is freed and its own `__eq__` asked next with the freed function as `self`: refilled by bytearray buffers of the
# code's own, a forged bytearray header over all memory (no audit event; fifty-fifth round). Sealed here: the module's
# `unregister` is a gate that compares in Python, on a record of the registrations the gates keep (`register`, `_clear`
# and `_run_exitfuncs` are gates that keep it), and where a function matched clears C's registry and registers the
# others again in their order; C's unregister is dropped (the module is served once: `serve_builtins_once`), and C
# compares nothing any more. The interpreter's exit runs C's registry as before (the child never exits so: it ends by
# `_exit`). Changed for honest code: the private `_ncallbacks()` counts no holes after an unregister (C's left them,
# skipped when run).
#
# C's `_run_exitfuncs` (`atexit_callfuncs`) called each record's function with the record's own argument tuple and
# keywords, which a C function taking a tuple (`functools.reduce`) reads by borrowed references: a step that cleared
# the registry freed the tuple and with it the step, and `reduce` called the freed step, refilled by a function of the
# code's (eighty-fifth round). Its gate runs the record the gates keep in Python instead, each function with its
# arguments and keywords held by the gate's frame, in C's order (the last registered first; one cleared or
# unregistered meanwhile skipped, one registered meanwhile not run) and with C's report of an error (the unraisable
# hook, "Exception ignored in atexit callback"); then it clears both registries, as C does. C's `_run_exitfuncs` is
# dropped too, so C's loop over its records runs nowhere; C's `register`, which the `register` gate still calls (its
# checks, its errors, `_ncallbacks()`), only adds to records nothing runs.
def _atexit_register(*args: Any, _sealed_tools: Any = (), **named: Any) -> Any:
    kept, register = _sealed_tools
    func = register(*args, **named)  # C's checks and errors
    kept.append((func, args[1:], named))
    return func


def _atexit_unregister(func: Any, /, *, _sealed_tools: Any = ()) -> None:
    kept, clear, register, list_ = _sealed_tools
    survivors, found = [], False
    for entry in list_(kept):  # held by this frame: no `__eq__` frees what is compared
        registered = entry[0]
        if registered is func or registered == func:  # C's order: the registered function's comparison first
            found = True
        else:
            survivors.append(entry)
    if found:
        clear()
        kept.clear()
        for entry in survivors:  # the same records: a run of the exit functions under way still runs them
            registered, args, named = entry
            register(registered, *args, **named)
            kept.append(entry)


def _atexit_clear(*, _sealed_tools: Any = ()) -> None:
    kept, clear = _sealed_tools
    clear()
    kept.clear()


def _atexit_run(*, _sealed_tools: Any = ()) -> None:
    kept, clear, list_, base, type_, getattr_, sys_, report_t = _sealed_tools
    entries = list_(kept)  # held by this frame: no callback frees what is called
    entries.reverse()  # C's order: the last registered first
    for entry in entries:
        for held in kept:
            if held is entry:
                break
        else:  # cleared or unregistered by a callback run before it
            continue
        func, args, named = entry
        try:
            func(*args, **named)
        except base as error:
            hook = getattr_(sys_, "unraisablehook", None)
            report = sys_.__unraisablehook__ if hook is None else hook
            try:
                report(report_t((type_(error), error, error.__traceback__, "Exception ignored in atexit callback",
                                 func)))
            except base as failed:
                sys_.__unraisablehook__(report_t((type_(failed), failed, failed.__traceback__,
                                                  "Exception ignored in sys.unraisablehook", report)))
            del error
    clear()
    kept.clear()


class _UnraisableProbe:
    """Dropped, it hands the unraisable hook what C hands it (`seal_atexit` takes its type)."""

    def __del__(self) -> None:
        raise RuntimeError("seal_atexit's probe of the unraisable hook's argument")


def seal_atexit(module: Any = None) -> str | None:
    """Make `atexit.unregister` compare functions it holds itself (above), in `module` (the one instance of `atexit`
    the bootstrap serves: made with the other built-in modules, so the seal imports nothing) or the imported one.
    Returns why it could not, or None."""
    if module is None:
        import atexit as module
    if type(module) is not type(sys) or module.__name__ != "atexit":
        return "atexit is not the built-in module this bootstrap knows"
    names = ("register", "unregister", "_clear", "_run_exitfuncs")
    own = vars(module)
    if any(type(own.get(name)).__name__ != "builtin_function_or_method" for name in names):
        return "atexit is not the built-in module this bootstrap knows"
    function_t: Any = type(_atexit_clear)
    seen: list[Any] = []
    saved = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        _UnraisableProbe()
    finally:
        sys.unraisablehook = saved
    if len(seen) != 1:
        return "the unraisable hook's argument could not be made"
    report_t = type(seen.pop())
    kept: list[Any] = []
    gates: dict[str, Any] = {}
    run_tools = (kept, own["_clear"], list, BaseException, type, getattr, sys, report_t)
    for name, code, tools in (("register", _atexit_register.__code__, (kept, own["register"])),
                              ("unregister", _atexit_unregister.__code__, (kept, own["_clear"], own["register"], list)),
                              ("_clear", _atexit_clear.__code__, (kept, own["_clear"])),
                              ("_run_exitfuncs", _atexit_run.__code__, run_tools)):
        gate = function_t(code, {}, name, None, None)
        gate.__kwdefaults__ = {"_sealed_tools": tools}
        gate.__doc__ = own[name].__doc__
        gates[name] = gate
    own.update(gates)
    return None


# `contextvars.Context.__eq__` (CPython 3.11; gh-142829, fixed in later releases only) walks both contexts' immutable
# mappings by borrowed references and compares the values with their own `__eq__` (Python code of the code's own): a
# value's `__eq__` that sets a variable in the context being compared (the current one) replaced that context's
# mapping, freeing the nodes C was walking, whose key and value pointers C went on reading and handing to the next
# comparison (SIGSEGV with the block refilled; a forged object where the refill is the code's; fifty-fifth round).
# Sealed here: `__eq__` and `__ne__` are gates that compare copies of both mappings (the items, taken by the C
# iterator, which holds its mapping; ContextVar keys hash and compare by identity, with no code of the code's), in C's
# order (each item of the left one looked up in the right one, the values compared by identity then `==`); they hold
# no C comparison.
def _context_compare(self: Any, other: Any, /, *, _sealed_tools: Any = ()) -> Any:
    context_t, type_, list_, dict_, len_, type_error, not_implemented, equal, name = _sealed_tools
    if type_(self) is not context_t:
        raise type_error(f"descriptor '{name}' requires a '_contextvars.Context' object but received a "
                         f"'{type_(self).__name__}'")
    if type_(other) is not context_t:
        return not_implemented
    mine, theirs = list_(self.items()), dict_(other.items())  # copies: every key and value held by this frame
    if len_(mine) != len_(theirs):
        return not equal
    for key, value in mine:
        if key not in theirs:
            return not equal
        found = theirs[key]
        if not (value is found or value == found):
            return not equal
    return equal


def seal_context() -> str | None:
    """Make `contextvars.Context`'s comparisons walk copies of the mappings (above). Returns why it could not, or
    None."""
    current = ctypes.pythonapi.PyContext_CopyCurrent  # the type without loading `_contextvars` (0.2 ms)
    current.argtypes, current.restype = (), ctypes.py_object
    cls: Any = type(current())
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    names = ("__eq__", "__ne__")
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or cls.__flags__ & _TPFLAGS_BASETYPE
            or cls.__module__ != "_contextvars" or cls.__name__ != "Context"
            or any(type(cls.__dict__.get(name)).__name__ != "wrapper_descriptor" for name in names)):
        return "contextvars.Context is not the C type this bootstrap knows"
    function_t: Any = type(_context_compare)
    gates: dict[str, Any] = {}
    for name, equal in zip(names, (True, False), strict=True):
        gate = function_t(_context_compare.__code__, {}, name, None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (cls, type, list, dict, len, TypeError, NotImplemented, equal, name)}
        gates[name] = gate
    _install_gates(cls, flags, gates)  # the comparison slot of the type follows
    return None


# Two cells compare by their contents (`cell_richcompare`, CPython 3.11): C takes both by borrowed references and
# hands them to the comparison, whose dispatch asks the right contents' reflected method first where its type
# subclasses the left's. That method's Python code set the left cell anew (`cell_contents`, or a `nonlocal` store into
# a closure's cell), so the old contents lived on only in its frame's argument, freed as the frame returned, and C
# went on to ask the freed object's own method with the freed block as `self`: the code held a dangling object whose
# block bytes of its own refilled (sixty-first round; the list comparison's and the comparison key's route, through a
# cell). Sealed here: the six comparisons are gates that hold both contents in their frame while they compare them,
# with C's answers (an empty cell comes before any full one, two empty cells are equal). Changed for honest code:
# comparing cells is a Python call.
CELL_GATES = ("__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__")


def _cell_compare(self: Any, other: Any, /, *, _sealed_tools: Any = ()) -> Any:
    cell_t, type_, type_error, value_error, not_implemented, compare, name = _sealed_tools
    if type_(self) is not cell_t:
        raise type_error(f"descriptor '{name}' requires a 'cell' object but received a '{type_(self).__name__}'")
    if type_(other) is not cell_t:
        return not_implemented
    try:
        mine, mine_empty = self.cell_contents, False  # held by this frame while the comparison runs
    except value_error:
        mine, mine_empty = None, True
    try:
        theirs, theirs_empty = other.cell_contents, False
    except value_error:
        theirs, theirs_empty = None, True
    if mine_empty or theirs_empty:
        return compare(theirs_empty, mine_empty)  # C's order: an empty cell first
    return compare(mine, theirs)


def seal_cell() -> str | None:
    """Make cells' comparisons hold the contents they compare (above). Returns why it could not, or None."""
    import operator

    cls: Any = type((lambda: cls).__closure__[0])  # type: ignore[index]
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or cls.__flags__ & _TPFLAGS_BASETYPE
            or cls.__module__ != "builtins" or cls.__name__ != "cell"
            or any(type(cls.__dict__.get(name)).__name__ != "wrapper_descriptor" for name in CELL_GATES)):
        return "the cell type is not the C type this bootstrap knows"
    function_t: Any = type(_cell_compare)
    gates: dict[str, Any] = {}
    for name in CELL_GATES:
        gate = function_t(_cell_compare.__code__, {}, name, None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (cls, type, TypeError, ValueError, NotImplemented,
                                                 getattr(operator, name), name)}
        gates[name] = gate
    _install_gates(cls, flags, gates)  # the comparison slot of the type follows
    return None


# A class's `__dict__` (and `vars(cls)`, a dict view's `mapping`) is a read-only `mappingproxy` over the type's own
# dict, which the interpreter changes only through `type.__setattr__`: that bumps the type's version, the key of its
# attribute lookup cache and of every call site specialised on it. A proxy's comparisons and `|` (`mappingproxy_
# richcompare`, `mappingproxy_or`, CPython 3.11) hand the dict they wrap to the other operand: the dispatch asks its
# reflected method with it (first where it subclasses dict, after the dict's own NotImplemented otherwise; `x | proxy`
# hands it to `x.__or__` again). The code held the type's own dict, deleted a method there (its function freed, the
# version unchanged) and called it: the lookup cache named the freed block, which a function the code made next had
# taken, and that ran (sixty-sixth round; a forged object alike). Sealed here: the six comparisons, `__or__` and
# `__ror__` are gates that hand the other operand a copy (`proxy.copy()`, the wrapped mapping's own `copy`; `dict(proxy)`
# where it has none), in C's order and with C's answers for the dicts types and C code wrap (a dict copy compares and
# joins as the dict). They hold no C comparison or `|` of the proxy's. `|=` stays C's (it refuses).
def _mapping_proxy_compare(self: Any, other: Any, /, *, _sealed_tools: Any = ()) -> Any:
    proxy_t, type_, copy, dict_t, attribute_error, type_error, compare, name = _sealed_tools
    if type_(self) is not proxy_t:
        raise type_error(f"descriptor '{name}' requires a 'mappingproxy' object but received a '{type_(self).__name__}'")
    try:
        mine = copy(self)  # what the other operand may hold: never the mapping itself
    except attribute_error:
        mine = dict_t(self)
    return compare(mine, other)


def _mapping_proxy_or(self: Any, other: Any, /, *, _sealed_tools: Any = ()) -> Any:
    proxy_t, type_, copy, dict_t, attribute_error, type_error, or_, reflected = _sealed_tools
    if type_(self) is not proxy_t:
        raise type_error(f"descriptor '{'__ror__' if reflected else '__or__'}' requires a 'mappingproxy' object but "
                         f"received a '{type_(self).__name__}'")
    try:
        mine = copy(self)
    except attribute_error:
        mine = dict_t(self)
    if type_(other) is proxy_t:
        try:
            other = copy(other)
        except attribute_error:
            other = dict_t(other)
    return or_(other, mine) if reflected else or_(mine, other)


def seal_mapping_proxy() -> str | None:
    """Make a mapping proxy's comparisons and `|` hand the other operand a copy of what it wraps (above). Returns why
    it could not, or None."""
    import operator

    cls: Any = type(type.__dict__)
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or cls.__flags__ & _TPFLAGS_BASETYPE
            or cls.__module__ != "builtins" or cls.__name__ != "mappingproxy"
            or any(type(cls.__dict__.get(name)).__name__ != "wrapper_descriptor"
                   for name in (*CELL_GATES, "__or__", "__ror__"))
            or type(cls.__dict__.get("copy")).__name__ != "method_descriptor"):
        return "the mapping proxy type is not the C type this bootstrap knows"
    function_t: Any = type(_mapping_proxy_compare)
    copy = cls.__dict__["copy"]
    gates: dict[str, Any] = {}
    for name in CELL_GATES:
        gate = function_t(_mapping_proxy_compare.__code__, {}, name, None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (cls, type, copy, dict, AttributeError, TypeError,
                                                 getattr(operator, name), name)}
        gates[name] = gate
    for name, reflected in (("__or__", False), ("__ror__", True)):
        gate = function_t(_mapping_proxy_or.__code__, {}, name, None, None)
        gate.__kwdefaults__ = {"_sealed_tools": (cls, type, copy, dict, AttributeError, TypeError, operator.or_,
                                                 reflected)}
        gates[name] = gate
    _install_gates(cls, flags, gates)  # the comparison and `|` slots of the type follow
    return None


# `iter(callable, sentinel)` (CPython 3.11's callable iterator, `calliter_iternext`) compares each value the callable
# returns with its sentinel (`PyObject_RichCompareBool`) without a reference of its own to the sentinel. A value whose
# type subclasses the sentinel's has its reflected `__eq__` asked first, which advances the same iterator: its
# callable returns the sentinel itself (taken from the iterator's `__reduce__`), the inner step exhausts the iterator,
# which drops the sentinel's last reference, and C goes on asking the freed sentinel's own `__eq__` with the freed
# block as `self`: a dangling object the code holds (sixty-second round). C's callable iterator is made by `iter`
# alone (`PyCallIter_New`, called by `builtin_iter` only; its type makes no instance). Sealed here: `builtins.iter` is
# a gate, the one-argument form the interpreter's own `GET_ITER` (a function whose code does nothing else, so that no
# tool holds C's `iter`), the two-argument form an iterator of the bootstrap's own (`callable_iterator`, a type made
# immutable and final) whose `__next__` holds the callable and the sentinel in its frame while it calls and compares,
# in C's order: identity first, then `sentinel == value`; a StopIteration of the callable ends it (nothing raised, as
# C), any other error passes and leaves it going, as C's. Run before every seal whose tools hold `iter`. Changed for
# honest code: the iterator's steps are a Python call (`type(it)` is no longer C's type), and `iter()`'s errors for
# keywords are Python's words.
def _get_iter(obj: Any, /) -> Any:
    return -obj  # the negation's instruction is replaced by GET_ITER in `seal_iter`


def _iter(*args: Any, _sealed_tools: Any = ()) -> Any:
    get_iter, made, callable_, type_error, len_ = _sealed_tools
    count = len_(args)
    if count == 1:
        return get_iter(args[0])
    if not count:
        raise type_error("iter expected at least 1 argument, got 0")
    if count > 2:
        raise type_error(f"iter expected at most 2 arguments, got {count}")
    if not callable_(args[0]):
        raise type_error("iter(v, w): v must be callable")
    return made(args[0], args[1])


def _calliter_made(call: Any, sentinel: Any, /, *, _sealed_tools: Any = ()) -> Any:
    new, cls, set_call, set_sentinel = _sealed_tools
    it = new(cls)
    set_call(it, call)
    set_sentinel(it, sentinel)
    return it


_SEALED_MADE: list[Any] = []  # the code of `seal_iter`'s GET_ITER function, once made


def _calliter_next(self: Any, /, *, _sealed_tools: Any = ()) -> Any:
    stop, call_get, sentinel_get, call_set, sentinel_set = _sealed_tools
    call, sentinel = call_get(self), sentinel_get(self)  # held by this frame while the callable and `__eq__` run
    if call is None:
        raise stop
    try:
        value = call()
    except stop:
        value = sentinel  # C: the iterator ends, nothing raised
    if value is not sentinel and not sentinel == value:  # noqa: SIM201 (C asks `==`, never `!=`)
        return value
    call_set(self, None)
    sentinel_set(self, None)
    raise stop


def _calliter_reduce(self: Any, /, *, _sealed_tools: Any = ()) -> Any:
    iter_, call_get, sentinel_get = _sealed_tools
    call = call_get(self)
    return (iter_, ((),)) if call is None else (iter_, (call, sentinel_get(self)))


def _calliter_iter(self: Any, /) -> Any:
    return self


def seal_iter() -> str | None:
    """Make `builtins.iter`'s two-argument form answer iterators that hold their sentinel (above). Returns why it
    could not, or None."""
    import builtins

    original: Any = builtins.iter
    code = _get_iter.__code__
    negate, get_iter_op = b"\x0b\x00", b"\x44\x00"  # CPython 3.11's UNARY_NEGATIVE and GET_ITER (`dis` costs ms)
    if (type(original).__name__ != "builtin_function_or_method" or original.__self__ is not builtins
            or sys.version_info[:2] != (3, 11) or code.co_code.count(negate) != 1):
        return "builtins.iter is not the C function this bootstrap knows"
    function_t: Any = type(_iter)
    get_iter = function_t(code.replace(co_code=code.co_code.replace(negate, get_iter_op)), {}, "iter", None, None)
    if type(get_iter(())) is not type(original(())):
        return "the interpreter's GET_ITER is not the one this bootstrap knows"
    _SEALED_MADE[:] = [get_iter.__code__]
    slots = {}
    cls: Any = type("callable_iterator", (), {"__slots__": ("_call", "_sentinel"), "__module__": "builtins"})
    call_d, sentinel_d = cls.__dict__["_call"], cls.__dict__["_sentinel"]
    made_gate = function_t(_calliter_made.__code__, {}, "callable_iterator", None, None)
    made_gate.__kwdefaults__ = {"_sealed_tools": (object.__new__, cls, call_d.__set__, sentinel_d.__set__)}
    gate = function_t(_iter.__code__, {}, "iter", None, None)
    gate.__kwdefaults__ = {"_sealed_tools": (get_iter, made_gate, builtins.callable, TypeError,
                                                 builtins.len)}
    gate.__module__, gate.__qualname__, gate.__doc__ = "builtins", "iter", original.__doc__
    for name, fn, tools in (
            ("__next__", _calliter_next, (StopIteration, call_d.__get__, sentinel_d.__get__, call_d.__set__,
                                          sentinel_d.__set__)),
            ("__reduce__", _calliter_reduce, (gate, call_d.__get__, sentinel_d.__get__)),
            ("__iter__", _calliter_iter, None)):
        slots[name] = function_t(fn.__code__, {}, name, None, None)
        if tools is not None:
            slots[name].__kwdefaults__ = {"_sealed_tools": tools}
        slots[name].__qualname__ = f"callable_iterator.{name}"
        type.__setattr__(cls, name, slots[name])
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if flags.value != cls.__flags__:
        return "a type's flags are not where this bootstrap knows"
    flags.value = (cls.__flags__ | _TPFLAGS_IMMUTABLETYPE) & ~_TPFLAGS_BASETYPE
    builtins.iter = gate
    return None


# A weak proxy compares by its referent (`proxy_richcompare`, CPython 3.11.7; its arithmetic holds the referents, its
# comparisons do not): C takes the referent (and the other operand's, where that is a proxy too) by a borrowed
# reference and hands it to the comparison, whose dispatch asks the other operand's reflected method first where its
# type subclasses the referent's. That method's Python code dropped the referent's last strong reference, so the
# referent lived on only in its frame's argument, freed as the frame returned, and C went on to ask the freed object's
# own method with the freed block as `self` (sixty-first round, as the cells'). Sealed here: the six comparisons of
# both proxy types are gates that take each referent into their frame (through a method the referent answers, whose
# `__self__` is checked to be the object the proxy refers to, by the proxy's presence among its weak references) and
# compare the referents, with C's answers and errors (`ReferenceError` where one is dead). Changed for honest code:
# comparing a proxy is a Python call that looks the referent's `__sizeof__` up; a referent whose
# `__getattribute__` answers another object's method there is not compared (TypeError).
def _proxy_compare(self: Any, other: Any, /, *, _sealed_tools: Any = ()) -> Any:
    own_t, proxy_types, type_, type_error, refs_of, compare, name = _sealed_tools
    if type_(self) is not own_t:
        got = type_(self)
        got_name = (got.__name__ if got.__module__ == "builtins" or got.__flags__ & 512  # a heap type's bare name
                    else f"{got.__module__}.{got.__name__}")
        raise type_error(f"descriptor '{name}' requires a 'weakref.{own_t.__name__}' object but received a "
                         f"'{got_name}'")
    mine = self.__sizeof__.__self__  # ReferenceError where the referent is dead, as C's
    for ref in refs_of(mine):
        if ref is self:
            break
    else:
        raise type_error("a weak proxy's referent answered another object's method; it is not compared here")
    theirs = other
    if type_(other) in proxy_types:
        theirs = other.__sizeof__.__self__
        for ref in refs_of(theirs):
            if ref is other:
                break
        else:
            raise type_error("a weak proxy's referent answered another object's method; it is not compared here")
    return compare(mine, theirs)  # both held by this frame while the comparison runs


def seal_weak_proxy() -> str | None:
    """Make weak proxies' comparisons hold the referents they compare (above). Returns why it could not, or None."""
    import _weakref
    import operator

    kinds: Any = (type(_weakref.proxy(seal_weak_proxy)), type(_weakref.proxy(_Probe())))
    names = CELL_GATES
    for cls in kinds:
        if (not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or cls.__flags__ & _TPFLAGS_BASETYPE
                or cls.__module__ != "weakref" or cls.__name__ not in ("ProxyType", "CallableProxyType")
                or any(type(cls.__dict__.get(name)).__name__ != "wrapper_descriptor" for name in names)):
            return "weakref's proxy types are not the C types this bootstrap knows"
    function_t: Any = type(_proxy_compare)
    for cls in kinds:
        flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
        if flags.value != cls.__flags__:
            return "weakref's proxy types are not the C types this bootstrap knows"
        gates = {}
        for name in names:
            gate = function_t(_proxy_compare.__code__, {}, name, None, None)
            gate.__kwdefaults__ = {"_sealed_tools": (cls, kinds, type, TypeError, _weakref.getweakrefs,
                                                     getattr(operator, name), name)}
            gates[name] = gate
        _install_gates(cls, flags, gates)
    return None


class _Probe:
    """An object a weak proxy can refer to (`seal_weak_proxy`)."""


# The C `OrderedDict` (`_collections`, CPython 3.11) walks its linked list of nodes while it runs the code's own Python
# code (a key's `__eq__` or `__hash__`, a `__repr__`, a finalizer the collector runs at an allocation) and goes on from
# a node that code may have freed: `==` of two OrderedDicts (gh-119004, fixed in 3.12 and later only) read the freed
# first node's `next`, refilled as a bytearray's buffer of the code's own, and compared the key of a node of the code's
# own making: a forged bytearray header handed to a key's `__eq__` (all memory, no audit event; forty-sixth round);
# `repr` and `copy` walk the nodes alike, `pop` and `popitem` unlink a node found before a second lookup (whose
# `__eq__` may free it: an unlink through freed memory). Sealed here: those methods are gates built from the C code
# that keeps no node across Python code (item access and deletion, which look the node up after the key's own code,
# the C iterator, which checks the dict's state, and `dict.__eq__`), set through `type.__setattr__` so that the slots of
# the type and of its subclasses follow (`==`, `!=` and `repr()` call the gates); the answers are C's own.
#
# The type also keeps a table of its nodes indexed like the dict's table of entries, brought to the dict's size before
# a lookup and not after: a colliding key's `__eq__` run by that lookup (`od[k] = v`'s second one, which places the new
# node; `del`, `pop`, `move_to_end`, `setdefault`) that grows the dict behind the OrderedDict's back
# (`dict.__setitem__`, `dict.update`, `exec` with it as globals: none makes a node) and stores the key again at the end
# of the grown table hands C an entry's place past its 8-slot table: it read the word there (the key left out of the
# order where it was not zero) and wrote the new node's pointer into it (an immutable `bytes` of the code's own rewritten;
# sixty-fourth round). Every lookup and every dict-level store would have to be gated, those of `dict`'s own methods and
# of C code storing into a dict among them. Sealed here instead: no C OrderedDict is made. Its `tp_new` is emptied (a
# `__new__` of Python's would not do: `dict.__new__` skips types whose `tp_new` is Python's and made one), so that a
# call, `dict.__new__`, `object.__new__` and every subclass's instances refuse (TypeError: cannot create, or not
# safe), and `_collections` loses the name before `collections` imports it, so that
# `collections.OrderedDict` is the pure-Python class CPython ships for builds without the C one (a `dict` subclass with
# a linked list of its own in Python: a dict-level store there leaves Python's bookkeeping behind, never C's memory).
# Changed for honest code: an OrderedDict's inserts and deletes run in Python (100000 int keys inserted: 23 ms in C,
# 368 ms in Python, deleted: 24 and 136 ms, on a shared 2-core machine), and `_collections.OrderedDict` is absent, as on
# builds without it.
ODICT_GATES = ("__eq__", "__ne__", "__repr__", "copy", "pop", "popitem")



def _odict_compare(self: Any, other: Any, tools: Any = (), equal: bool = True) -> Any:
    odict_t, dict_eq, isinstance_, list_, keys, not_implemented, dict_t = tools[:6] + tools[16:17]
    if not isinstance_(self, odict_t) or not isinstance_(other, dict_t):
        return not_implemented
    same = dict_eq(self, other)
    if same is True and isinstance_(other, odict_t):
        same = list_(keys(self)) == list_(keys(other))  # the keys in order, on copies
    return same if same is not_implemented else same is equal


def _odict_repr(self: Any, tools: Any = ()) -> Any:
    odict_t, list_, type_, len_, running, ident, id_, items = tools[:1] + tools[3:4] + tools[6:12]
    seen = (id_(self), ident())
    if seen in running:
        return "..."
    running.add(seen)
    try:
        name = type_(self).__name__
        if not len_(self):
            return f"{name}()"
        return f"{name}({list_(items(self) if type_(self) is odict_t else self.items())!r})"
    finally:
        running.discard(seen)


def _odict_copy(self: Any, tools: Any = ()) -> Any:
    new = tools[6](self)()
    for key in tools[3](tools[4](self)):
        new[key] = self[key]
    return new


def _odict_pop(self: Any, key: Any, default: Any = _ABSENT, tools: Any = ()) -> Any:
    if key in self:
        value = self[key]
        del self[key]  # the node is looked up after the key's own code, and unlinked at once
        return value
    if default is tools[12]:
        raise tools[13](key)
    return default


def _odict_popitem(self: Any, last: Any = True, tools: Any = ()) -> Any:
    if not tools[7](self):
        raise tools[13]("dictionary is empty")
    key = tools[15](tools[14](self) if last else tools[4](self))
    return key, tools[17](self, key)


def seal_ordered_dict() -> str | None:
    """Make the C `OrderedDict` keep no node across the code's own Python code (above). Returns why it could not, or
    None."""
    import _collections
    import _thread
    import builtins

    function_t: Any = type(_odict_repr)
    cls: Any = _collections.OrderedDict  # what `collections` exports (no import of the package here)
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE or cls.__module__ != "collections"
            or "__new__" in cls.__dict__ or cls.__new__ is not dict.__new__ or type.__subclasses__(cls)
            or any(type(cls.__dict__.get(name)).__name__ not in ("wrapper_descriptor", "method_descriptor")
                   for name in (*ODICT_GATES, "__iter__", "__reversed__"))):
        return "OrderedDict is not the C type this bootstrap knows"
    if "collections" in sys.modules:  # it took the C type already (the bootstrap imports it nowhere)
        return "collections was imported before the OrderedDict was sealed"
    tools: tuple[Any, ...] = (
        cls, dict.__eq__, builtins.isinstance, list, cls.__dict__["__iter__"], NotImplemented, type, builtins.len,
        set(), _thread.get_ident, builtins.id, cls.__dict__["items"], _ABSENT, KeyError,
        cls.__dict__["__reversed__"], builtins.next, dict)
    pop = function_t(_odict_pop.__code__, {}, "pop", (_ABSENT, tools))
    gates = {"__eq__": function_t(_odict_compare.__code__, {}, "__eq__", (tools, True)),
             "__ne__": function_t(_odict_compare.__code__, {}, "__ne__", (tools, False)),
             "__repr__": function_t(_odict_repr.__code__, {}, "__repr__", (tools,)),
             "copy": function_t(_odict_copy.__code__, {}, "copy", (tools,)), "pop": pop,
             "popitem": function_t(_odict_popitem.__code__, {}, "popitem", (True, (*tools, pop)))}
    _install_gates(cls, flags, gates)  # the slots of the type and its subclasses follow
    new = ctypes.c_void_p.from_address(id(cls) + _TP_NEW)
    if new.value != ctypes.c_void_p.from_address(id(dict) + _TP_NEW).value:
        return "OrderedDict does not have the tp_new this bootstrap knows"
    new.value = None  # no C OrderedDict is made: a call, `dict.__new__`, `object.__new__` and subclasses refuse
    del vars(_collections)["OrderedDict"]  # `collections` keeps its pure-Python class (`from _collections import`)
    return None


# `deque.index` (CPython 3.11; gh-115243, fixed in 3.12 and later only) compares each item by a borrowed reference: a
# value whose type subclasses the item's asks its own `__eq__` first, which may drop the deque's last reference to the
# item (its frame holds it until it returns) and answer NotImplemented, and the item's `__eq__` is then asked with the
# freed item as `self`; refilled as a bytearray's buffer of the code's own, it is a forged bytearray header over all
# memory (no audit event; forty-sixth round). Sealed here: `index` is a gate that compares items the gate holds itself
# (a copy of the deque, made by the C iterator), with C's answers and errors.
def _deque_index(self: Any, value: Any, start: Any = 0, stop: Any = None, tools: Any = ()) -> Any:
    list_, len_, index_, value_error, range_, type_error = tools
    items = list_(self)  # references of the gate's own: no comparison frees what it compares
    count = len_(items)
    try:
        start = index_(start)
        stop = count if stop is None else index_(stop)
    except type_error:
        raise type_error("slice indices must be integers or have an __index__ method") from None
    if start < 0:
        start = start + count if start + count > 0 else 0
    if stop < 0:
        stop = stop + count if stop + count > 0 else 0
    if stop > count:
        stop = count
    for place in range_(start, stop):
        item = items[place]
        if item is value or item == value:
            return place
    raise value_error(f"{value!r} is not in deque")


def seal_deque() -> str | None:
    """Make `deque.index` compare items it holds itself (above). Returns why it could not, or None."""
    import _collections

    cls: Any = _collections.deque
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or type(cls.__dict__.get("index")).__name__ != "method_descriptor"):
        return "deque is not the C type this bootstrap knows"
    function_t: Any = type(_deque_index)
    gate = function_t(_deque_index.__code__, {}, "index", (0, None, (list, len, _index, ValueError, range, TypeError)))
    _install_gates(cls, flags, {"index": gate})
    return None


# `collections.Counter` counts (its constructor, `update`) through `_collections._count_elements` (CPython 3.11),
# which, for a dict whose `get` and item store are dict's own, adds one to the count it finds (`PyNumber_Add(oldval,
# one)`) by a borrowed reference. A count of the code's own (an int subclass) has its `__add__` asked first, which
# cleared the dict, dropped its frame's reference (`del self`: the count freed there) and made a bytearray whose buffer
# took the freed block, forged as an int, and answered NotImplemented: C went on to `int.__add__` with the freed
# block as the count, and the counter stored a number read from the code's bytes (a digit count of its choosing reads
# the heap past the block, or faults; sixty-third round). Sealed here: the helper is a gate written as
# `collections`' own pure-Python fallback (`mapping[elem] = mapping.get(elem, 0) + 1`, whose frame holds the count
# while it adds), set on `_collections` before `collections` takes it (and on `collections` where it already did);
# C's helper is dropped (the module is served once: `serve_builtins_once`). Changed for honest code: counting runs
# in Python (counting 100000 small ints: 20.5 -> 25.0 ms on a shared 2-core machine, 100000 short strings 22.5 -> 29.0).
def _count_elements(mapping: Any, iterable: Any, /) -> None:
    mapping_get = mapping.get
    for elem in iterable:
        mapping[elem] = mapping_get(elem, 0) + 1  # the count held by this frame while it adds


def seal_count_elements() -> str | None:
    """Make `collections.Counter` count in Python, holding each count it adds to (above). Returns why it could not,
    or None."""
    import _collections

    own = vars(_collections)
    original = own.get("_count_elements")
    if type(original).__name__ != "builtin_function_or_method" or original.__self__ is not _collections:
        return "_collections._count_elements is not the C function this bootstrap knows"
    function_t: Any = type(_count_elements)
    gate = function_t(_count_elements.__code__, {}, "_count_elements", None, None)
    gate.__module__, gate.__doc__ = "_collections", original.__doc__
    own["_count_elements"] = gate
    imported = sys.modules.get("collections")
    if imported is not None and vars(imported).get("_count_elements") is original:
        vars(imported)["_count_elements"] = gate
    return None


# A C `functools.partial` calls its function with its stored arguments by borrowed references (`partial_vectorcall`
# passes the tuple's items and the function as they are), and its repr walks them while their reprs run: a callee's
# Python code (a `key=` of `bisect.insort`, an argument's `__repr__`) that calls `__setstate__` on the partial frees
# the old function, tuple and keyword dict under the C code still using them. `bisect.insort` of a list held by the
# partial alone went on bisecting the freed list's item table, refilled by bytes of the code's own naming a forged
# bytearray header, and handed that to the key (all memory, no audit event; forty-sixth round). Sealed here: calls and
# repr are gates that take references of their own to the function, arguments and keywords first (set through
# `type.__setattr__`, so that the call and repr slots of the type and its subclasses follow; the vectorcall flag is
# cleared, so every call goes through the slot); `__setstate__` stays for pickling and copies, and frees nothing in use.
def _partial_call(self: Any, /, *args: Any, _sealed_tools: Any = (), **named: Any) -> Any:
    func_of, args_of, keywords_of = _sealed_tools[:3]  # a keyword default: the call's own keywords are the code's
    func, given, keywords = func_of(self), args_of(self), keywords_of(self)  # held for the whole call
    if keywords:
        return func(*given, *args, **{**keywords, **named})
    return func(*given, *args, **named)


def _partial_repr(self: Any, tools: Any = ()) -> Any:
    func_of, args_of, keywords_of, type_, partial_t, dict_, id_, ident, running = tools
    seen = (id_(self), ident())
    if seen in running:
        return "..."
    running.add(seen)
    try:
        func, given, keywords = func_of(self), args_of(self), dict_(keywords_of(self))
        text = ""
        for arg in given:
            text = f"{text}, {arg!r}"
        for key, value in keywords.items():
            text = f"{text}, {key!s}={value!r}"
        name = "functools.partial" if type_(self) is partial_t else type_(self).__name__
        return f"{name}({func!r}{text})"
    finally:
        running.discard(seen)


_TPFLAGS_HAVE_VECTORCALL = 1 << 11


def seal_partial() -> str | None:
    """Make a C `functools.partial` hold what it calls and prints (above). Returns why it could not, or None."""
    import _functools
    import _thread
    import builtins

    cls: Any = _functools.partial
    own = cls.__dict__
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    if (flags.value != cls.__flags__ or not cls.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or not cls.__flags__ & _TPFLAGS_HAVE_VECTORCALL
            or any(type(own.get(name)).__name__ != "member_descriptor" for name in ("func", "args", "keywords"))
            or any(type(own.get(name)).__name__ != "wrapper_descriptor" for name in ("__call__", "__repr__"))):
        return "functools.partial is not the C type this bootstrap knows"
    function_t: Any = type(_partial_repr)
    tools: tuple[Any, ...] = (own["func"].__get__, own["args"].__get__, own["keywords"].__get__, type, cls, dict, builtins.id,
             _thread.get_ident, set())
    call = function_t(_partial_call.__code__, {}, "__call__")
    call.__kwdefaults__ = {"_sealed_tools": tools}
    show = function_t(_partial_repr.__code__, {}, "__repr__", (tools,))
    pending, types = [cls], []
    while pending:
        kind = pending.pop()
        pending.extend(type.__subclasses__(kind))
        types.append(kind)
    _install_gates(cls, flags, {"__call__": call, "__repr__": show})  # the call slots (and every subclass's) follow
    for kind in types:  # each call through the slot: a partial's own vectorcall borrowed what it passed
        kind_flags = ctypes.c_ulong.from_address(id(kind) + _TP_FLAGS)
        kind_flags.value = kind_flags.value & ~_TPFLAGS_HAVE_VECTORCALL
    return None


# A `functools.cmp_to_key` key compares by calling the comparison function with the two wrapped objects, borrowed
# from the keys; its `obj` member was writable. A C comparison function (`operator.lt`) that asked the second object's
# reflected method first, whose Python code set the first key's `obj` anew, had the first object freed while C went on
# to ask its own method with the freed object as `self` (the list comparison's route, through a key: fifty-third
# round). Sealed here: `obj` is read-only, as the member's definition says (`READONLY` set in it, which every copy of
# the type shares); nothing else changes a key's object. Changed for honest code: assigning `obj` raises.
_T_OBJECT, _READONLY = 6, 1


def seal_key_wrapper() -> str | None:
    """Make a comparison key's `obj` read-only (above). Returns why it could not, or None."""
    import _functools

    key = _functools.cmp_to_key(None)(0)
    member = type(key).__dict__.get("obj")
    if type(member).__name__ != "member_descriptor":
        return "functools.KeyWrapper is not the C type this bootstrap knows"
    definition = ctypes.c_void_p.from_address(id(member) + 5 * _WORD).value or 0  # after the descriptor's header
    if (not definition or ctypes.string_at(ctypes.c_void_p.from_address(definition).value or 0) != b"obj"
            or ctypes.c_int.from_address(definition + _WORD).value != _T_OBJECT):
        return "functools.KeyWrapper is not the C type this bootstrap knows"
    flags = ctypes.c_int.from_address(definition + 3 * _WORD)  # name, type, offset, flags, doc
    flags.value |= _READONLY
    try:
        key.obj = 1
    except AttributeError:
        return None
    return "functools.KeyWrapper's obj stayed writable"



# CPython 3.11 stores an attribute (`setattr`, `delattr`, `object.__setattr__`, `STORE_ATTR`) into the object's
# `__dict__` by a borrowed reference (`_PyObjectDict_SetItem`, `_PyObject_StoreInstanceAttribute`; gh-142731, open
# upstream), and Python code of the code's own runs inside that store: the hash of a `str` subclass given as the name,
# or the `__eq__` of a key already in the dict whose hash matches. Assigning (or deleting) the object's `__dict__` there
# freed the dict and its table while C went on inserting into them: SIGSEGV on plain 3.11.7, a write through a table of
# the code's own with a refilled block (fifty-ninth round). Every owner's reference to its dict is dropped through one
# of two C setters: `subtype_setdict` (instances of classes made in Python, from two static tables every such class
# shares, later ones included) and `PyObject_GenericSetDict` (functions, class and static methods, exceptions,
# partials, lru caches, OrderedDicts, `_ast`'s nodes). Sealed here: both setters are taken out of every table that
# names them (the `set` of the getset definition, which the descriptors read at each call), so `__dict__` can be read
# and changed in place but not replaced or deleted; C's "attribute '__dict__' of ... objects is not writable" is
# raised. The tables naming `PyObject_GenericSetDict` are found in the interpreter's writable data, not through the
# types that use them: `_ast`'s node types are made at the module's first use (`import ast`), after this seal, from a
# static table it had left (sixtieth round: a parsed node's store died of SIGSEGV in every hooked set); making them at
# start cost 1.3 ms a call. The host finds their offsets once (`object_dict_offsets`), the child checks each one and
# scans itself (1.3 ms, more where its pages are cold) only where they do not check out. A partial's
# `__setstate__` replaced its dict too: it is taken away, and a partial reduces to a call of its class (`__reduce__` and
# `__reduce_ex__` gates), its dict the state copy and pickle update. Changed for honest code: `obj.__dict__ = d`
# raises AttributeError (use `obj.__dict__.clear()` and `update(d)`); `partial.__setstate__` is gone, and a partial
# with keywords pickles with protocols 0, 1, 4 and 5 only (4 is the default).


def _partial_reduce(self: Any, protocol: Any = 4, tools: Any = ()) -> Any:
    """A partial's `__reduce__` and `__reduce_ex__` without `__setstate__` (which replaced the partial's dict): made
    again by its class (`copyreg.__newobj_ex__` where it has keywords), its dict as the state, which copy and pickle
    update the new partial's `__dict__` with."""
    func_of, args_of, keywords_of, dict_of, type_, newobj_ex, type_error = tools
    cls, func, given, keywords, namespace = type_(self), func_of(self), args_of(self), keywords_of(self), dict_of(self)
    if not keywords:
        return cls, (func, *given), namespace or None
    if protocol == 2 or protocol == 3:  # pickle makes `__newobj_ex__` a partial there, which reduces the same way
        raise type_error("a functools.partial with keywords pickles with protocol 0, 1, 4 or 5 in the sandbox")
    return newobj_ex, (cls, (func, *given), keywords), namespace or None


def _getset_definition(descriptor: Any) -> int:
    """The address of a getset descriptor's definition (after the descriptor's header), or 0."""
    if type(descriptor).__name__ != "getset_descriptor":
        return 0
    return ctypes.c_void_p.from_address(id(descriptor) + 5 * _WORD).value or 0


_PT_GNU_RELRO = 0x6474E552
_GETSET_DEF = 5 * _WORD  # name, get, set, doc, closure


def _dict_setter_object() -> tuple[int, int, list[_Segment], list[tuple[int, int]]] | str:
    """`PyObject_GenericSetDict`'s address and the loaded ELF object holding it (the interpreter's library, or its
    executable where it is linked in): the load bias, the loadable segments and the spans made read-only after
    relocation (`PT_GNU_RELRO`), or why not. One `dladdr` and one read of the program headers."""
    setter = ctypes.cast(ctypes.pythonapi.PyObject_GenericSetDict, ctypes.c_void_p).value or 0
    info, dladdr = _DlInfo(), getattr(ctypes.pythonapi, "dladdr", None)
    if dladdr is None:
        return "the C library has no dladdr (glibc before 2.34 keeps it in libdl)"
    if not dladdr(ctypes.c_void_p(setter), ctypes.byref(info)) or not info.dli_fbase:
        return "dladdr found no object holding the interpreter's PyObject_GenericSetDict"
    header = ctypes.string_at(info.dli_fbase, 64)
    (phoff,), (phentsize, phnum) = struct.unpack_from("<Q", header, 32), struct.unpack_from("<HH", header, 54)
    if header[:6] != b"\x7fELF\x02\x01" or phentsize != 56:
        return "the interpreter's library is not the 64-bit little-endian ELF object this bootstrap knows"
    heads = list(struct.iter_unpack("<IIQQQQQQ", ctypes.string_at(info.dli_fbase + phoff, 56 * phnum)))
    loads = [(vaddr, filesz, flags) for kind, flags, _, vaddr, _, filesz, _, _ in heads if kind == _PT_LOAD]
    if not loads:
        return "the interpreter's library has no loadable segment"
    bias = info.dli_fbase - (min(vaddr for vaddr, _, _ in loads) & ~0xFFF)
    relro = [(bias + vaddr, bias + vaddr + size) for kind, _, _, vaddr, _, _, size, _ in heads if kind == _PT_GNU_RELRO]
    return setter, bias, loads, relro


def _dict_setter_definitions(known: dict[str, Any] | None, must: set[int]) -> list[int] | str:
    """The addresses of every getset definition named `__dict__` whose setter is `PyObject_GenericSetDict`, in the
    writable data of the object holding it: those `known` gives (`object_dict_offsets` of the host: the same build,
    the same segments) where each checks out and `must` (the definitions found through the types) are among them,
    else a scan of that data (word by word: the setter's address); or why they cannot be found or cleared."""
    located = _dict_setter_object()
    if isinstance(located, str):
        return located
    setter, bias, loads, relro = located
    anywhere = [(bias + vaddr, bias + vaddr + filesz) for vaddr, filesz, _ in loads]
    writable = [(bias + vaddr, bias + vaddr + filesz) for vaddr, filesz, flags in loads if flags & _PF_W]

    def inside(address: int, size: int, spans: list[tuple[int, int]]) -> bool:
        return any(start <= address and address + size <= end for start, end in spans)

    def definition(at: int) -> bool:
        if at % _WORD or not inside(at, _GETSET_DEF, writable):
            return False
        name, _, set_ = struct.unpack("=QQQ", ctypes.string_at(at, 3 * _WORD))
        return set_ == setter and inside(name, 9, anywhere) and ctypes.string_at(name, 9) == b"__dict__\0"

    found: list[int] = []
    if known is not None:
        try:
            same = known["loads"] == [list(load) for load in loads] and known["build_id"] == _build_id(bias, loads)
            found = sorted({bias + int(offset) for offset in known["offsets"]}) if same else []
        except (KeyError, TypeError, ValueError):
            found = []
        if not (found and all(definition(at) for at in found) and must <= set(found)):
            found = []
    if not found:
        word = setter.to_bytes(_WORD, sys.byteorder)
        # The address's low bytes only: a needle ending in zero bytes made `bytes.find` crawl (10 ms, not 0.6).
        needle, lead = (word[:6], 0) if sys.byteorder == "little" else (word[-6:], _WORD - 6)
        for start, end in writable:
            data = ctypes.string_at(start, end - start)
            hit = data.find(needle)
            while hit >= 0:
                at = hit - lead
                if at >= 0 and data[at:at + _WORD] == word and definition(start + at - 2 * _WORD):
                    found.append(start + at - 2 * _WORD)
                hit = data.find(needle, hit + 1)
    if not must <= set(found):
        return "the __dict__ setters' tables are not in the interpreter's writable data"
    if any(inside(at, _GETSET_DEF, relro) for at in found):
        return "a __dict__ setter lies in data made read-only after relocation"
    return found


def object_dict_offsets() -> dict[str, Any] | None:
    """What `seal_object_dicts(known=...)` takes: the build id and loadable segments of the object holding
    `PyObject_GenericSetDict` in this process, and the offsets of every `__dict__` getset definition naming it; None
    where they cannot be found (or this process sealed its own: the child then scans)."""
    def plain() -> None:
        pass

    must = _getset_definition(type.__dict__["__dict__"].__get__(type(plain)).get("__dict__"))
    located = _dict_setter_object()
    if isinstance(located, str) or not must:
        return None
    _, bias, loads, _ = located
    found = _dict_setter_definitions(None, {must})
    build_id = _build_id(bias, loads)
    if isinstance(found, str) or not build_id:
        return None
    return {"build_id": build_id, "loads": [list(load) for load in loads], "offsets": [at - bias for at in found]}


def _c_ordered_dict() -> Any:
    """The C `OrderedDict` type: `_collections`' own where `seal_ordered_dict` has not taken the name away yet, else
    the static subclass of `dict` by that name (no instance of it is made once sealed)."""
    import _collections

    return vars(_collections).get("OrderedDict") or next(
        kind for kind in type.__subclasses__(dict)
        if kind.__name__ == "OrderedDict" and kind.__module__ == "collections" and not kind.__flags__ & _TPFLAGS_HEAPTYPE)


def seal_object_dicts(known: dict[str, Any] | None = None) -> str | None:
    """Take the `__dict__` setters out of every getset table that names them (above), made into types or not yet.
    `known`: `object_dict_offsets` of the host. Returns why it could not, or None."""
    import _functools

    def plain() -> None:
        pass

    class Full:  # the definitions every class made in Python shares: with a weak reference slot, and without
        pass

    class DictOnly:
        __slots__ = ("__dict__",)

    kinds = (type(plain), Full, DictOnly, classmethod, staticmethod, BaseException, _functools.partial,
             _functools._lru_cache_wrapper, _c_ordered_dict())
    found = [_getset_definition(type.__dict__["__dict__"].__get__(kind).get("__dict__")) for kind in kinds]
    if not all(found) or any(ctypes.string_at(ctypes.c_void_p.from_address(at).value or 0) != b"__dict__" for at in found):
        return "the __dict__ descriptors are not the ones this bootstrap knows"
    generic = _dict_setter_definitions(known, set(found[:1] + found[3:]))  # but `subtype_setdict`'s two
    if isinstance(generic, str):
        return generic
    definitions = [(ctypes.c_void_p * 3).from_address(at) for at in sorted({*found, *generic})]  # name, get, set
    partial: Any = _functools.partial
    flags = ctypes.c_ulong.from_address(id(partial) + _TP_FLAGS)
    if (flags.value != partial.__flags__ or not partial.__flags__ & _TPFLAGS_IMMUTABLETYPE
            or type(partial.__dict__.get("__setstate__")).__name__ != "method_descriptor"):
        return "functools.partial is not the C type this bootstrap knows"
    for definition in definitions:
        definition[2] = None  # the setter
    import copyreg

    function_t: Any = type(_partial_reduce)
    own, made_again = partial.__dict__, vars(copyreg)["__newobj_ex__"]
    reduce = function_t(_partial_reduce.__code__, {}, "__reduce_ex__", (4, (
        own["func"].__get__, own["args"].__get__, own["keywords"].__get__, own["__dict__"].__get__, type, made_again,
        TypeError)))
    # `__setstate__` replaced the partial's dict (a store into it went on in the freed one)
    _install_gates(partial, flags, {"__reduce_ex__": reduce, "__reduce__": reduce}, ("__setstate__",))
    for owner in (plain, Full(), DictOnly(), BaseException()):
        try:
            owner.__dict__ = {}
        except AttributeError:
            continue
        return f"{type(owner).__name__} objects' __dict__ stayed assignable"
    return None

# A C text wrapper hands the bytes it reads to its newline decoder, and the newline decoder to the codec's incremental
# decoder, each by a borrowed reference; the codec's decoder (a registered codec, an `encodings._cache` entry, a stdlib
# class whose `_buffer_decode` the code replaced, or a C decoder's error handler) is the code's own Python code, and
# from there `reconfigure(encoding=...)` or a second `__init__` of the wrapper (accepted: nothing is decoded yet)
# dropped the wrapper's only reference to the newline decoder C was still running (`tell`, `seek` and `reset` reach
# the codec's `getstate`, `setstate` and `reset` alike): C went on in a freed block (forty-seventh and forty-eighth
# rounds). Sealed here for every way of freeing it, threads included: a newline decoder made by calling the type (as
# C's wrapper does) is an instance of a subclass whose `decode`, `getstate`, `setstate` and `reset` are Python
# functions holding the decoder for the whole C call (the wrapper's fast path, which calls C's decode directly, takes
# the exact C type only, so it goes through them). The subclass is immutable (no method replaced, no `__class__`
# changed back); the gates are functions whose code and defaults the hook keeps (`sealed_codes`).
def _newline_new(cls: Any, decoder: Any = _ABSENT, translate: Any = _ABSENT, errors: Any = _ABSENT, base: Any = None,
                 holding: Any = None, new: Any = None, *more: Any, **named: Any) -> Any:
    return new(holding if cls is base else cls)  # C's `__init__` runs next, on the same arguments


def _newline_decode(self: Any, input: Any, final: Any = False, original: Any = None) -> Any:
    return original(self, input, final)  # this frame holds the decoder while C decodes


def _newline_setstate(self: Any, state: Any, original: Any = None) -> Any:
    return original(self, state)


def _newline_plain(self: Any, original: Any = None) -> Any:
    return original(self)


def seal_newline_decoder() -> str | None:
    """Make a text wrapper's newline decoder held while it runs the codec's decoder (above). Returns why it could
    not, or None."""
    import _io

    cls: Any = _io.IncrementalNewlineDecoder
    held = gc.get_referents(cls.__dict__)
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
    new = ctypes.c_void_p.from_address(id(cls) + _TP_NEW)
    generic_new = ctypes.cast(ctypes.pythonapi.PyType_GenericNew, ctypes.c_void_p).value
    if (len(held) != 1 or type(held[0]) is not dict or flags.value != cls.__flags__ or new.value != generic_new
            or cls.__base__ is not object or type.__subclasses__(cls)
            or any(type(held[0].get(name)).__name__ != "method_descriptor"
                   for name in ("decode", "getstate", "setstate", "reset"))):
        return "IncrementalNewlineDecoder is not the C type this bootstrap knows"
    own = held[0]
    function_t: Any = type(_newline_plain)
    holding: Any = type(cls.__name__, (cls,), {
        "__slots__": (), "__module__": cls.__module__, "__doc__": cls.__doc__,
        "decode": function_t(_newline_decode.__code__, {}, "decode", (False, own["decode"])),
        "getstate": function_t(_newline_plain.__code__, {}, "getstate", (own["getstate"],)),
        "setstate": function_t(_newline_setstate.__code__, {}, "setstate", (own["setstate"],)),
        "reset": function_t(_newline_plain.__code__, {}, "reset", (own["reset"],))})
    holding_flags = ctypes.c_ulong.from_address(id(holding) + _TP_FLAGS)
    if holding_flags.value != holding.__flags__:
        return "a class does not have the type layout this bootstrap knows"
    slot_new = ctypes.c_void_p.from_address(id(type("probe", (), {"__new__": _newline_new})) + _TP_NEW).value
    gate = function_t(_newline_new.__code__, {}, "__new__", (_ABSENT, _ABSENT, _ABSENT, cls, holding, object.__new__))
    modified = ctypes.pythonapi.PyType_Modified
    modified.argtypes, modified.restype = (ctypes.py_object,), None
    own["__new__"] = gate
    new.value = slot_new  # the C wrapper calls the type: the gate runs, and `object.__new__` finds both types slots
    ctypes.c_void_p.from_address(id(holding) + _TP_NEW).value = slot_new
    holding_flags.value = holding.__flags__ | _TPFLAGS_IMMUTABLETYPE
    modified(cls)
    modified(holding)
    return None


# The CJK codecs' C objects (`_multibytecodec`'s incremental decoders and encoders, stream readers and writers: every
# codec of `encodings.gb18030`, `shift_jis`, `euc_kr`, `big5`, `iso2022_jp`...) run Python code of the code's own in
# their C methods (an error handler registered with `codecs.register_error`, a stream's `read` or `write`) and go on
# using their object and what it held when that code returns. Two frees reached from there (forty-ninth round):
# - the object itself: a C text wrapper calls its decoder's `decode` and its encoder's `encode` by borrowed references
#   (an explicit `newline` leaves out the newline decoder; a newline decoder of the code's own, `io.TextIOWrapper`
#   over a stream reader alike), and an error handler that calls `reconfigure(encoding=...)` or `__init__` on the
#   wrapper freed the decoder C was running: the new decoder took its block, and the old C decode wrote its pending
#   lead byte into it (a character of bytes the new decoder never read);
# - the errors name: an encode takes its `errors` object once, and a handler that sets `encoder.errors` freed it while
#   C went on using it for the next bad character (a string of the code's own refilled the block: a handler the
#   encoder was never given ran, another object's header was read as a string's).
# Sealed here for every C caller and route, threads included, with no raw method the code could hold (a gate's
# defaults are readable, and a codec of the code's own hands the text wrapper any class it makes): the four types'
# `tp_dealloc` becomes `Py_IncRef`, so no such object is ever freed (a dropped one keeps one reference nobody holds:
# some 60 bytes and its errors name for the run's life, a stream reader or writer its stream too; the collector counts
# that reference as an outside one), and their shared `errors` attribute loses its setter (AttributeError, as for a
# read-only attribute; the stdlib never sets it). `_multibytecodec` is loaded by the bootstrap for this, so the hook
# refuses a second load of its file (`loaded_extension_stems`: a fresh copy would have unsealed types).
MULTIBYTE_TYPES = ("MultibyteIncrementalDecoder", "MultibyteIncrementalEncoder", "MultibyteStreamReader",
                   "MultibyteStreamWriter")
_TP_DEALLOC = 6 * _WORD
_TPFLAGS_HEAPTYPE, _TPFLAGS_HAVE_GC = 1 << 9, 1 << 14


def _all_subclasses(cls: type) -> list[type]:
    found: list[type] = []
    todo: list[type] = list(type.__subclasses__(cls))
    while todo:
        found.append(todo.pop())
        todo.extend(type.__subclasses__(found[-1]))
    return found


def seal_multibytecodec() -> str | None:
    """Keep the CJK codecs' C objects and their errors names alive while their C methods run (above). Returns why it
    could not, or None."""
    import _multibytecodec

    keep = ctypes.cast(ctypes.pythonapi.Py_IncRef, ctypes.c_void_p).value
    subtype_dealloc = ctypes.c_void_p.from_address(id(type("probe", (), {})) + _TP_DEALLOC).value
    setters = set()
    for name in MULTIBYTE_TYPES:
        cls: Any = getattr(_multibytecodec, name, None)
        errors = vars(cls).get("errors") if type(cls) is type else None
        if (type(errors).__name__ != "getset_descriptor" or cls.__module__ != "_multibytecodec"
                or ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS).value != cls.__flags__
                or cls.__flags__ & (_TPFLAGS_HEAPTYPE | _TPFLAGS_HAVE_GC) != _TPFLAGS_HEAPTYPE | _TPFLAGS_HAVE_GC
                or ctypes.c_void_p.from_address(id(cls) + _TP_DEALLOC).value in (None, keep, subtype_dealloc)
                or any(ctypes.c_void_p.from_address(id(sub) + _TP_DEALLOC).value != subtype_dealloc
                       for sub in _all_subclasses(cls))  # classes of Python call the base's dealloc
                or ctypes.c_void_p.from_address(id(errors) + 2 * _WORD).value != id(cls)):  # the descriptor's type
            return f"_multibytecodec.{name} is not the C type this bootstrap knows"
        definition = ctypes.c_void_p.from_address(id(errors) + 5 * _WORD).value  # its PyGetSetDef
        if not definition or ctypes.c_char_p.from_address(definition).value != b"errors" \
                or not ctypes.c_void_p.from_address(definition + _WORD).value:
            return f"_multibytecodec.{name}.errors is not the attribute this bootstrap knows"
        setters.add(definition + 2 * _WORD)
    for name in MULTIBYTE_TYPES:
        ctypes.c_void_p.from_address(id(getattr(_multibytecodec, name)) + _TP_DEALLOC).value = keep
    for setter in setters:
        ctypes.c_void_p.from_address(setter).value = None
    return None


# sqlite's per-connection hooks (`Connection.set_authorizer`, `set_progress_handler`, `set_trace_callback`) keep the
# code's callable in a 24-byte C record that sqlite hands back to each call; setting a hook again, clearing it, `close()`
# and a second `__init__` free that record and drop the callable, and C went on using both when called from inside the
# hook itself: a hook that replaced itself and raised crashed plain 3.11.7 (the error path reads the freed record's
# module state, then hands its callable slot to `sys.unraisablehook`; a bytearray of the same size refills the block: a
# forged object), and a progress handler that closed its connection was called again from the freed record (fiftieth
# round). No Python gate holds: every gate keeps the raw C setter where the code reads it (a frame's locals in a
# signal handler). Sealed here in C data, before the module exists: the bootstrap maps `_sqlite3`'s file (dlopen; the
# import system's load later finds the same mapping) and overwrites those three entries of the connection's method
# table (`PyMethodDef`, in the file's writable data) with a copy of its `interrupt` entry, so the type sqlite3 makes
# has no such method and no record of them is ever made: close and `__init__` free none, and the records of user
# functions, aggregates, window functions and collations are sqlite's, which refuses to replace one while a statement
# runs and defers their free past a close. Changed for honest code: those three methods are absent (AttributeError).
# `backup(dst, progress=f)` held `dst`'s raw connection in C across each call of `f`, and sqlite defers a close only
# for a backup's source: `dst.close()` or a second `dst.__init__` from `f` freed the destination under the next step
# (fifty-first round). The same bootstrap gives `backup`'s argument parser (`_PyArg_Parser`, in the file's writable
# data, its keyword tuple not made yet) a keyword tuple of its own whose `progress` slot is the int -1, which no
# keyword a call passes can equal (C compares the lengths first: -1 is no str's), so `progress` is an invalid keyword
# (TypeError) and `backup` runs no Python code: the other routes into it (signal handlers, the collector) wait for
# the interpreter's loop, which a backup does not enter. Honest backups (whole, page by page, `name`, `sleep`) copy.
SQLITE_HOOK_SETTERS = (b"set_authorizer", b"set_progress_handler", b"set_trace_callback")
_METH_NOARGS, _SQLITE_SETTER_FLAGS = 0x4, 0x200 | 0x80 | 0x2  # METH_METHOD | METH_FASTCALL | METH_KEYWORDS
_PT_LOAD, _PF_X, _PF_W = 1, 1, 2
_METHOD_DEF = 4 * _WORD  # ml_name, ml_meth, ml_flags (padded), ml_doc
# `_PyArg_Parser` of CPython 3.11: format, keywords, fname, custom_msg, pos/min/max (ints), kwtuple, next.
_PARSER_SIZE, _PARSER_KWTUPLE = 8 * _WORD, 6 * _WORD
BACKUP_KEYWORDS = (b"target", b"pages", b"progress", b"name", b"sleep")


def _name_pointers(segments: list[tuple[int, int, bytes]], name: bytes) -> list[tuple[int, bytes, int]]:
    """Each aligned word in a writable segment of an ELF file's mapped segments (flags, address, contents) that points
    at the C string `name` in a read-only one: (its address, that segment's contents, its offset there)."""
    found = []
    for seg_flags, start, text in segments:
        at = -1 if seg_flags & (_PF_X | _PF_W) else text.find(b"\0" + name + b"\0")
        while at >= 0:
            needle = (start + at + 1).to_bytes(_WORD, sys.byteorder)
            for data_flags, data_start, data in segments:
                hit = data.find(needle) if data_flags & _PF_W else -1
                while hit >= 0:
                    if (data_start + hit) % _WORD == 0:
                        found.append((data_start + hit, data, hit))
                    hit = data.find(needle, hit + 1)
            at = text.find(b"\0" + name + b"\0", at + 1)
    return found


def _method_entry(segments: list[tuple[int, int, bytes]], name: bytes, flags: int) -> int | None:
    """The address of the one method table entry (`PyMethodDef`) named `name` with `flags` among the mapped segments
    of an ELF file (flags, address, contents), or None: its name pointer to that string in a read-only segment, its
    function in an executable one."""
    code = [(start, start + len(data)) for seg_flags, start, data in segments if seg_flags & _PF_X]
    found = []
    for address, data, hit in _name_pointers(segments, name):
        if hit + _METHOD_DEF <= len(data):
            function = int.from_bytes(data[hit + _WORD:hit + 2 * _WORD], sys.byteorder)
            if (int.from_bytes(data[hit + 2 * _WORD:hit + 2 * _WORD + 4], sys.byteorder) == flags
                    and any(low <= function < high for low, high in code)):
                found.append(address)
    return found[0] if len(found) == 1 else None


def seal_sqlite_hooks(known: dict[str, Any] | None = None) -> str | None:
    """Leave sqlite's connections no authorizer, progress handler or trace callback, and `backup` no progress callback
    (above). Returns why it could not, or None (also where the interpreter has no `_sqlite3` file: nothing to seal).
    `known` (`sqlite_hook_offsets` of the host: where the host found the entries in its mapping of the same file)
    spares the scan of the file's segments (0.6 ms of the child's CPU a call): taken where the file is the same build
    with the same segments and every entry checks out at its address as the scan checks it, else scanned as before."""
    if "_sqlite3" in sys.modules:
        return "_sqlite3 is loaded already"
    # importlib.machinery's PathFinder, without the `importlib` package and `warnings` it imports (0.5 ms a call)
    spec = sys.modules["_frozen_importlib_external"].PathFinder.find_spec("_sqlite3")
    if spec is None or type(spec.origin) is not str:
        return "_sqlite3 is built in" if "_sqlite3" in sys.builtin_module_names else None
    mapped = _sqlite_mapping(spec.origin)
    if isinstance(mapped, str):
        return mapped
    base, loads = mapped
    found = (_known_sqlite_entries(spec.origin, base, loads, known) if known is not None else None) or _sqlite_entries(
        base, loads, fresh=True)
    if isinstance(found, str):
        return found
    source, targets, parser = found
    for target in targets:
        ctypes.memmove(target, source, _METHOD_DEF)
    names = tuple(-1 if name == b"progress" else sys.intern(name.decode()) for name in BACKUP_KEYWORDS)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(names))  # never freed: the parser holds it for the process's life
    ctypes.c_void_p.from_address(parser + _PARSER_KWTUPLE).value = id(names)
    return None


def _sqlite_mapping(origin: str) -> tuple[int, list[tuple[int, int, int]]] | str:
    """`_sqlite3`'s file (`origin`) mapped (dlopen: the import system's load later finds the same mapping): its load
    bias and loadable segments (flags, address, size), or why not (not the ELF file this bootstrap knows)."""
    handle = ctypes.CDLL(origin)._handle  # never closed: the import system's dlopen finds this mapping
    base = ctypes.c_void_p.from_address(handle).value or 0  # glibc's handle is the link map: its load bias first
    header = ctypes.string_at(base, 64)
    if header[:6] != b"\x7fELF\x02" + (b"\x01" if sys.byteorder == "little" else b"\x02") or _WORD != 8:
        return "_sqlite3's file is not the 64-bit ELF file this bootstrap knows"
    table, entry_size, count = struct.unpack_from("=Q", header, 32)[0], *struct.unpack_from("=HH", header, 54)
    heads = ctypes.string_at(base + table, entry_size * count)
    loads: list[tuple[int, int, int]] = []
    for i in range(count):
        kind, seg_flags, offset, start, _, _, size = struct.unpack_from("=IIQQQQQ", heads, i * entry_size)
        if kind == _PT_LOAD:
            if not loads and (offset or start):
                return "_sqlite3's file is not mapped as this bootstrap knows"
            loads.append((seg_flags, base + start, size))
    return base, loads


def _sqlite_entries(base: int, loads: list[tuple[int, int, int]], fresh: bool) -> tuple[int, list[int], int] | str:
    """Scan the mapped `_sqlite3` for the connection's `interrupt` method entry, its three hook setters' entries and
    `backup`'s argument parser (their addresses), or why they are not the ones this bootstrap knows. `fresh`: the
    parser must have no keyword tuple yet (the module has not run: the child's case; the host's own copy may have)."""
    segments = [(seg_flags, start, ctypes.string_at(start, size)) for seg_flags, start, size in loads]
    source = _method_entry(segments, b"interrupt", _METH_NOARGS)
    targets = [_method_entry(segments, name, _SQLITE_SETTER_FLAGS) for name in SQLITE_HOOK_SETTERS]
    found = [target for target in targets if target is not None]
    if source is None or len(found) != len(targets):
        return "_sqlite3's connection methods are not the table this bootstrap knows"
    parser = _arg_parser(segments, b"backup", BACKUP_KEYWORDS, fresh)
    if parser is None:
        return "_sqlite3's backup argument parser is not the record this bootstrap knows"
    return source, found, parser


def sqlite_hook_offsets() -> dict[str, Any] | None:
    """What `seal_sqlite_hooks(known=...)` takes, found in this process's mapping of `_sqlite3`'s file (mapped here if
    it is not: no module is made): the file, its build id and loadable segments, and the entries' and the parser's
    offsets from its load bias; None where they cannot be found (the child then scans as before)."""
    import importlib.machinery

    spec = importlib.machinery.PathFinder.find_spec("_sqlite3")
    if spec is None or type(spec.origin) is not str:
        return None
    mapped = _sqlite_mapping(spec.origin)  # whether or not this process loaded the module: it reads, writes nothing
    if isinstance(mapped, str):
        return None
    base, loads = mapped
    found = _sqlite_entries(base, loads, fresh=False)
    build_id = _build_id(base, [(start - base, size, seg_flags) for seg_flags, start, size in loads])
    if isinstance(found, str) or not build_id:
        return None
    source, targets, parser = found
    return {"origin": spec.origin, "build_id": build_id, "loads": [[f, start - base, size] for f, start, size in loads],
            "source": source - base, "targets": [target - base for target in targets], "parser": parser - base}


def _known_sqlite_entries(origin: str, base: int, loads: list[tuple[int, int, int]],
                          known: dict[str, Any]) -> tuple[int, list[int], int] | None:
    """The addresses `known` gives for the `_sqlite3` mapped at `base`, or None where it is not the file they were found
    in (another path, build id or segments) or an address does not hold what the scan would find there: a method
    entry named so, with those flags, its function in an executable segment; the parser's record, no keyword tuple
    yet, its name and keyword array pointing at those texts. (The scan also finds each one alone in the file: the same
    build has the same tables.)"""
    try:
        same = (origin == known["origin"]
                and known["loads"] == [[f, start - base, size] for f, start, size in loads]
                and known["build_id"] == _build_id(base, [(start - base, size, f) for f, start, size in loads]))
        source, parser = base + int(known["source"]), base + int(known["parser"])
        targets = [base + int(offset) for offset in known["targets"]]
    except (KeyError, TypeError, ValueError):
        return None
    if not same or len(targets) != len(SQLITE_HOOK_SETTERS):
        return None
    readonly = [(start, start + size) for f, start, size in loads if not f & (_PF_X | _PF_W)]
    writable = [(start, start + size) for f, start, size in loads if f & _PF_W]
    code = [(start, start + size) for f, start, size in loads if f & _PF_X]
    anywhere = [(start, start + size) for _, start, size in loads]

    def inside(address: int, size: int, spans: list[tuple[int, int]]) -> bool:
        return any(start <= address and address + size <= end for start, end in spans)

    def word(address: int) -> int:
        return ctypes.c_size_t.from_address(address).value

    def names(address: int, name: bytes) -> bool:  # a pointer to `name` in a read-only segment, NUL on both sides
        return inside(address - 1, len(name) + 2, readonly) and ctypes.string_at(address - 1, len(name) + 2) == (
            b"\0" + name + b"\0")

    def entry(address: int, name: bytes, flags: int) -> bool:
        return (address % _WORD == 0 and inside(address, _METHOD_DEF, writable) and names(word(address), name)
                and ctypes.c_uint32.from_address(address + 2 * _WORD).value == flags
                and inside(word(address + _WORD), 1, code))

    if not (entry(source, b"interrupt", _METH_NOARGS)
            and all(entry(target, name, _SQLITE_SETTER_FLAGS) for target, name in zip(targets, SQLITE_HOOK_SETTERS, strict=True))
            and parser % _WORD == 0 and inside(parser, _PARSER_SIZE, writable)
            and word(parser) == 0 and word(parser + _PARSER_KWTUPLE) == 0 and names(word(parser + 2 * _WORD), b"backup")):
        return None
    array = word(parser + _WORD)
    if not inside(array, _WORD * (len(BACKUP_KEYWORDS) + 1), anywhere):
        return None
    pointers = [word(array + i * _WORD) for i in range(len(BACKUP_KEYWORDS) + 1)]
    if pointers[-1] != 0 or not all(
            inside(pointer, len(name) + 1, anywhere) and ctypes.string_at(pointer, len(name) + 1) == name + b"\0"
            for pointer, name in zip(pointers[:-1], BACKUP_KEYWORDS, strict=True)):
        return None
    return source, targets, parser


def _arg_parser(segments: list[tuple[int, int, bytes]], fname: bytes, keywords: tuple[bytes, ...],
                fresh: bool = True) -> int | None:
    """The address of the one argument parser record (`_PyArg_Parser`, CPython 3.11) of the function `fname` with
    `keywords` among the mapped segments of an ELF file, or None: no format, its keyword array pointing at those
    names in order, its name pointer at that string, and (`fresh`) no keyword tuple made yet (the module has not
    run)."""
    def word(data: bytes, at: int) -> int:
        return int.from_bytes(data[at:at + _WORD], sys.byteorder)

    def mapped(address: int, size: int) -> bytes | None:
        for _, start, data in segments:
            if start <= address and address + size <= start + len(data):
                return data[address - start:address - start + size]
        return None

    found = []
    for address, data, hit in _name_pointers(segments, fname):
        record = data[hit - 2 * _WORD:hit + 6 * _WORD] if hit >= 2 * _WORD else b""
        if len(record) == _PARSER_SIZE and word(record, 0) == 0 and (word(record, _PARSER_KWTUPLE) == 0 or not fresh):
            array = mapped(word(record, _WORD), _WORD * (len(keywords) + 1))
            names = [word(array, i * _WORD) for i in range(len(keywords) + 1)] if array else [1]
            if names[-1] == 0 and all(mapped(pointer, len(name) + 1) == name + b"\0"
                                      for pointer, name in zip(names[:-1], keywords, strict=True)):
                found.append(address - 2 * _WORD)
    return found[0] if len(found) == 1 else None


def sealed_codes() -> tuple[Any, ...]:
    """The code objects of the gates `seal_buffered_io`, `seal_array`, `seal_mmap`, `seal_list`, `seal_bytearray`,
    `seal_groupby`, `seal_accumulate`, `seal_iter`, `seal_count`, `seal_atexit`, `seal_context`, `seal_cell`, `seal_weak_proxy`, `seal_mapping_proxy`, `seal_held_callables`, `seal_property`, `seal_abstract_flags`, `seal_codec_registry`, `seal_signal_handlers`, `seal_expat_handlers`, `seal_sqlite_factories`, `seal_sqlite_statement_cache`, `seal_profiler_timer`, `seal_csv_reader`, `seal_list_order`, `seal_memoryview`, `seal_ordered_dict`, `seal_deque`, `seal_count_elements`, `seal_reentered_iterators`,
    `seal_partial`, `seal_object_dicts`, `seal_newline_decoder`, `seal_standard_streams` and `seal_import` install, which the hook keeps from being changed."""
    return (_own_method_get.__code__, _own_method_set.__code__, _buffered_new.__code__, _array_setitem.__code__,
            _array_append.__code__, _array_insert.__code__, _array_extend.__code__, _array_fromlist.__code__,
            _array_tofile.__code__, _mmap_setitem.__code__, _list_setitem.__code__, _bytearray_setitem.__code__,
            _bytearray_join.__code__, _bytearray_read.__code__, _bytearray_rmod.__code__, _view_hex.__code__,
            _bytearray_init.__code__, _view_setitem.__code__, _view_index_like.__code__,
            _groupby_new.__code__, _groupby_classes.__code__, _groupby_step.__code__,
            _groupby_next.__code__, _grouper_next.__code__, _own_iter.__code__, _accumulate_new.__code__,
            _accumulate_steps.__code__, _count_init.__code__, _atexit_register.__code__,
            _atexit_unregister.__code__, _atexit_clear.__code__, _atexit_run.__code__, _context_compare.__code__, _cell_compare.__code__, _proxy_compare.__code__,
            _mapping_proxy_compare.__code__, _mapping_proxy_or.__code__, _list_order.__code__,
            _defaultdict_missing.__code__, _staticmethod_call.__code__,
            _property_get.__code__, _property_set.__code__, _property_delete.__code__,
            _property_missing.__code__, _abstract_flag.__code__, _codec_search.__code__, _codec_register.__code__, _codec_unregister.__code__,
            _signal_box.__code__, _signal_set.__code__, _held_unwrap.__code__, _signal_get.__code__,
            _expat_set.__code__, _expat_get.__code__, _expat_delete.__code__,
            _sqlite_factory_set.__code__, _sqlite_factory_get.__code__, _sqlite_factory_delete.__code__,
            _profiler_init.__code__, _sqlite_statement_cache.__code__, _sqlite_statement_maker.__code__,
            _sqlite_statement.__code__,
            _view_compare.__code__, _view_hash.__code__, _odict_compare.__code__, _odict_repr.__code__,
            _odict_copy.__code__, _odict_pop.__code__, _odict_popitem.__code__, _deque_index.__code__, _count_elements.__code__, _islice_number.__code__, _islice_new.__code__,
            _islice_steps.__code__, _zip_longest_new.__code__, _zip_longest_steps.__code__,
            _partial_call.__code__, _partial_repr.__code__, _partial_reduce.__code__, _newline_new.__code__, _newline_decode.__code__,
            _newline_setstate.__code__, _newline_plain.__code__, _iter.__code__, _calliter_made.__code__,
            _calliter_next.__code__, _calliter_reduce.__code__, _calliter_iter.__code__,
            _csv_lines.__code__, _csv_step.__code__, _csv_reader.__code__, _streams_box.__code__,
            _streams_held.__code__, _stream_given.__code__, _print.__code__, _display.__code__, _import.__code__,
            *_SEALED_MADE)


def seal_buffered_io() -> str | None:
    """Make `_io`'s buffered types hand their buffer to C raw streams only (above). Returns why it could not, or None."""
    import _io

    function_t: Any = type(_own_method_get)
    modified = ctypes.pythonapi.PyType_Modified
    modified.argtypes, modified.restype = (ctypes.py_object,), None
    slot_new = ctypes.c_void_p.from_address(id(type("probe", (), {"__new__": _own_method_get})) + _TP_NEW).value
    generic_new = ctypes.cast(ctypes.pythonapi.PyType_GenericNew, ctypes.c_void_p).value
    own = tuple(getattr(_io, name) for name in OWN_RAW_TYPES)
    made = tuple(getattr(_io, name) for name in BUFFERED_TYPES)
    for cls in own:
        held = gc.get_referents(cls.__dict__)
        if len(held) != 1 or type(held[0]) is not dict:
            return f"{cls.__qualname__}'s attributes are not held where this bootstrap knows"
        for name in VIEW_TAKERS:
            original = held[0].get(name)
            if type(original).__name__ != "method_descriptor":
                return f"{cls.__qualname__}.{name} is not the C method this bootstrap knows"
            descriptor: Any = type(f"{cls.__name__}_{name}", (), {
                "__slots__": (), "__get__": function_t(_own_method_get.__code__, {}, "__get__", (None, original)),
                "__set__": function_t(_own_method_set.__code__, {}, "__set__", (AttributeError,))})
            flags = ctypes.c_ulong.from_address(id(descriptor) + _TP_FLAGS)
            if flags.value != descriptor.__flags__:
                return "a class does not have the type layout this bootstrap knows"
            flags.value |= _TPFLAGS_IMMUTABLETYPE  # its methods and an instance's class stay as made
            held[0][name] = descriptor()
        modified(cls)
    # importlib's Python `__import__`, not `builtins.__import__`: this seal runs before `seal_import`, and C's function
    # held here was the code's to read (a function's `__defaults__`: eighty-fourth round).
    twin: Any = getattr(sys.modules.get("_frozen_importlib"), "__import__", None)
    if type(twin) is not function_t:
        return "importlib's own __import__ is missing"
    gate = function_t(_buffered_new.__code__, {}, "__new__", (
        _ABSENT, _ABSENT, _ABSENT, own, made, _io.BufferedRWPair, _io._BufferedIOBase.__new__, _ABSENT, type, getattr,
        twin, TypeError))
    for cls in made:
        held = gc.get_referents(cls.__dict__)
        flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS)
        new = ctypes.c_void_p.from_address(id(cls) + _TP_NEW)
        if (len(held) != 1 or type(held[0]) is not dict or "__init__" not in held[0] or flags.value != cls.__flags__
                or new.value != generic_new or cls.__base__ is not _io._BufferedIOBase or type.__subclasses__(cls)):
            return f"{cls.__qualname__} does not have the layout this bootstrap knows"
        flags.value = cls.__flags__ & ~_TPFLAGS_BASETYPE
        del held[0]["__init__"]  # type_call still runs C's (its slot), after the gate, on the same arguments
        held[0]["__new__"] = gate
        new.value = slot_new
        modified(cls)
    return None


def _errno_text(err: int) -> str:
    return f"{errno.errorcode.get(err, str(err))}: {os.strerror(err)}"


def die_with_host(libc: ctypes.CDLL, parent: int) -> str | None:
    """Have the kernel kill this process when the host that started it dies: a host killed mid-call takes its wall
    clock with it, and a sleeping run then lived on for good, its memory held. Set after the uid drop (a change of
    credentials clears it); a host already gone by then is seen in the parent pid (`parent`: the host's, or 0 in a
    pid namespace of the run's own, where an orphan's parent would read 1), and this process ends at once.
    Returns why it could not, or None."""
    if int(libc.prctl(*(ctypes.c_ulong(v) for v in (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)))) != 0:
        return f"prctl(PR_SET_PDEATHSIG) failed ({_errno_text(ctypes.get_errno())})"
    if os.getppid() != parent:
        os.kill(os.getpid(), SIGKILL)
    return None


def set_no_new_privs(libc: ctypes.CDLL) -> str | None:
    """Forbid gaining privileges through exec (also required for unprivileged seccomp and Landlock)."""
    if int(libc.prctl(*(ctypes.c_ulong(v) for v in (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)))) == 0:
        return None
    return f"prctl(PR_SET_NO_NEW_PRIVS) failed ({_errno_text(ctypes.get_errno())})"


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi(libc: ctypes.CDLL) -> tuple[int, str | None]:
    """The kernel's Landlock ABI version, or 0 and why there is none."""
    version = int(libc.syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), None, ctypes.c_size_t(0),
                               ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION)))
    if version > 0:
        return version, None
    err = ctypes.get_errno()
    if err == errno.ENOSYS:
        return 0, f"the kernel ({os.uname().release}) has no Landlock ({_errno_text(err)})"
    if err == errno.EOPNOTSUPP:
        return 0, f"Landlock is built into the kernel but not enabled at boot ({_errno_text(err)})"
    return 0, f"landlock_create_ruleset failed ({_errno_text(err)}; a container seccomp profile may forbid it)"


def restrict_paths(
    libc: ctypes.CDLL, read_roots: Sequence[str], library_roots: Sequence[str], write_root: str, tcp: bool
) -> str | None:
    """Landlock: read and list only under `read_roots` and `write_root`, read files (never list) under
    `library_roots` (what the dynamic loader needs for extension modules), write only under `write_root`; no
    signals or abstract sockets outside this process and, unless `tcp` (an empty network namespace already
    leaves nothing to reach), no TCP, where the ABI has them; no audit record of what it denies. Returns why it
    failed, or None."""
    abi, why = landlock_abi(libc)
    if why is not None:
        return why
    handled = (1 << 13) - 1  # ABI 1: execute .. make_sym
    handled |= FS_REFER if abi >= 2 else 0
    handled |= FS_TRUNCATE if abi >= 3 else 0
    handled |= FS_IOCTL_DEV if abi >= 5 else 0
    attr = _RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 and not tcp else 0,
                        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = int(libc.syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), ctypes.byref(attr),
                               ctypes.c_size_t(size), ctypes.c_uint32(0)))
    if ruleset < 0:
        return f"landlock_create_ruleset failed ({_errno_text(ctypes.get_errno())})"
    try:
        rules = [(write_root, SCRATCH_RIGHTS & handled)] + [(root, FS_READ_FILE | FS_READ_DIR) for root in read_roots]
        rules += [(root, FS_READ_FILE) for root in library_roots]
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # an optional system file this machine lacks
            try:
                if not os.path.isdir(path):
                    rights &= FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE
                rule = _PathBeneathAttr(rights, fd)
                if libc.syscall(ctypes.c_long(SYS_LANDLOCK_ADD_RULE), ctypes.c_int(ruleset),
                                ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0)):
                    return f"landlock_add_rule for {path} failed ({_errno_text(ctypes.get_errno())})"
            finally:
                os.close(fd)
        quiet = RESTRICT_SELF_LOG_SAME_EXEC_OFF if abi >= 7 else 0
        if libc.syscall(ctypes.c_long(SYS_LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(quiet)):
            return f"landlock_restrict_self failed ({_errno_text(ctypes.get_errno())})"
    finally:
        os.close(ruleset)
    return None


# The C library reads files under /proc and /sys by constant paths of its own, natively (no audit event): getlogin
# /proc/self/loginuid (the host's login session), get_nprocs and get_nprocs_conf (os.cpu_count, os.sysconf's CPU
# counts) /sys/devices/system/cpu/online and /possible and /proc/stat (the machine's CPUs), sysconf's limits and
# malloc's tunables /proc/sys and /sys/kernel/mm files. An empty /proc or Landlock keeps the host's out of reach;
# where both are missing (no namespace may be made, no Landlock) those opens read the host's. BPF cannot read a
# path, but these are the library's own constants, passed by address: an open (openat, open) of any of them answers
# ENOENT, as where /proc and /sys are not mounted (glibc falls back: getlogin to stdin's terminal, the CPU counts to
# its constant). Python's opens pass paths from its own buffers, never these addresses. Its device paths likewise:
# syslog with LOG_CONS opened /dev/console for writing where no /dev/log answered (the host's console, written raw
# by a run without Landlock under a root host), getpt /dev/ptmx; none opens now, as on a host without those nodes.
_HOST_TREES = (b"/proc/", b"/sys/", b"/dev/")
_PT_LOAD, _PF_X, _PF_W = 1, 1, 2
_NT_GNU_BUILD_ID = 3


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p), ("dli_sname", ctypes.c_char_p),
                ("dli_saddr", ctypes.c_void_p)]


class _DlPhdrInfo(ctypes.Structure):  # the head of struct dl_phdr_info (the fields after dlpi_phnum are not read)
    _fields_ = [("dlpi_addr", ctypes.c_void_p), ("dlpi_name", ctypes.c_char_p), ("dlpi_phdr", ctypes.c_void_p),
                ("dlpi_phnum", ctypes.c_uint16)]


_Segment = tuple[int, int, int]  # a PT_LOAD's vaddr, file size, flags


def _load_segments(phdr: int, phnum: int) -> list[_Segment]:
    """The PT_LOAD segments of the 64-bit ELF program headers at `phdr` in memory."""
    segments = [struct.unpack_from("<IIQQQQ", ctypes.string_at(phdr + i * 56, 48)) for i in range(phnum)]
    return [(vaddr, filesz, flags) for kind, flags, _, vaddr, _, filesz in segments if kind == _PT_LOAD]


def _segments_by_dladdr(libc: ctypes.CDLL, inside: int) -> tuple[int, list[_Segment]] | str:
    dladdr = getattr(libc, "dladdr", None)
    info = _DlInfo()
    if dladdr is None:
        return "the C library has no dladdr (glibc before 2.34 keeps it in libdl)"
    if not dladdr(ctypes.c_void_p(inside), ctypes.byref(info)) or not info.dli_fbase:
        return "dladdr found no object holding the C library's getlogin"
    base = info.dli_fbase
    header = ctypes.string_at(base, 64)
    if header[:5] != b"\x7fELF\x02" or header[5] != 1:  # 64-bit, little-endian
        return "the C library is not a 64-bit little-endian ELF object"
    (phoff,) = struct.unpack_from("<Q", header, 32)
    phentsize, phnum = struct.unpack_from("<HH", header, 54)
    if phentsize != 56:
        return f"the C library's program headers are {phentsize} bytes, not 56"
    loads = _load_segments(base + phoff, phnum)
    if not loads:
        return "the C library has no loadable segment"
    return base - (min(vaddr for vaddr, _, _ in loads) & ~0xFFF), loads  # dli_fbase: the first segment's page


def _segments_by_phdr_walk(libc: ctypes.CDLL, inside: int) -> tuple[int, list[_Segment]] | str:
    """The loaded object holding `inside`, found by walking every object's program headers (`dl_iterate_phdr`: in
    glibc since 2.2.4 and in musl, where `dladdr` may be missing). The callback lives only during the walk."""
    walk = getattr(libc, "dl_iterate_phdr", None)
    if walk is None:
        return "nor dl_iterate_phdr"
    found: list[tuple[int, list[_Segment]]] = []

    def visit(info: ctypes._Pointer[_DlPhdrInfo], size: int, data: int | None) -> int:
        head = info.contents
        bias, loads = head.dlpi_addr or 0, _load_segments(head.dlpi_phdr or 0, head.dlpi_phnum)
        if any(bias + vaddr <= inside < bias + vaddr + filesz for vaddr, filesz, _ in loads):
            found.append((bias, loads))
            return 1  # stops the walk
        return 0

    callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_DlPhdrInfo), ctypes.c_size_t, ctypes.c_void_p)(visit)
    try:
        walk(callback, None)
    finally:
        del callback
    return found[0] if found else "dl_iterate_phdr found no object holding the C library's getlogin"


def c_library_host_paths(libc: ctypes.CDLL, known: dict[str, Any] | None = None) -> tuple[tuple[int, ...], str | None]:
    """The addresses of every text under /proc, /sys and /dev in the C library's read-only segments (where the string
    constants it opens lie), found from its ELF program headers in memory (located by `dladdr`, else by
    `dl_iterate_phdr`), and None; or () and why they cannot be found (the seccomp rule that answers their opens
    ENOENT is then missing: the caller reports it as the `libc-paths` layer's absence, never silently).

    `known` (`c_library_path_offsets` of the host: the same C library file, mapped elsewhere) spares the scan of its
    490 KB (0.4 ms of the child's CPU a call): taken where this library has the same build id and segments, and
    every address it gives holds such a text; otherwise the library is scanned as before."""
    inside = ctypes.cast(libc.getlogin, ctypes.c_void_p).value or 0
    located = _segments_by_dladdr(libc, inside)
    if isinstance(located, str):
        walked = _segments_by_phdr_walk(libc, inside)
        if isinstance(walked, str):
            return (), f"{located}; {walked}"
        located = walked
    bias, loads = located
    if known is not None:
        taken = _known_paths(bias, loads, known)
        if taken:
            return taken, None
    found: set[int] = set()
    # The constants lie in the read-only data segment (the linker's separate-code layout, binutils' default since
    # 2.31); a library without one keeps them beside its code, which is scanned then (five times the bytes).
    memmem = libc["memmem"]  # a function object of its own: the shared `libc.memmem` keeps its default types
    memmem.restype, memmem.argtypes = ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                                                        ctypes.c_size_t)
    for unwanted in (_PF_W | _PF_X, _PF_W):
        for vaddr, filesz, flags in loads:
            if flags & unwanted:
                continue
            start = end = bias + vaddr
            end += filesz
            for tree in _HOST_TREES:  # in place, no copy (bytes.find took 2 ms of CPU a call on these 490 KB)
                at = memmem(start, filesz, tree, len(tree))
                while at:
                    found.add(at)  # any tail of a merged string starts here too
                    at = memmem(at + 1, end - at - 1, tree, len(tree))
        if found:
            break
    if not found:
        return (), "no text under /proc/, /sys/ or /dev/ in the C library's read-only segments"
    return tuple(sorted(found)), None


def c_library_path_offsets(libc: ctypes.CDLL) -> dict[str, Any] | None:
    """What `c_library_host_paths(known=...)` takes: this process's C library's build id, its loadable segments and
    the texts' addresses relative to where it is mapped; None where they cannot be found (no build id, no texts)."""
    inside = ctypes.cast(libc.getlogin, ctypes.c_void_p).value or 0
    located = _segments_by_dladdr(libc, inside)
    if isinstance(located, str):
        return None
    bias, loads = located
    paths, why = c_library_host_paths(libc)
    build_id = _build_id(bias, loads)
    if why is not None or not build_id:
        return None
    return {"build_id": build_id, "loads": [list(load) for load in loads],
            "offsets": [address - bias for address in paths]}


def _build_id(bias: int, loads: list[_Segment]) -> str:
    """The GNU build id (hex) of the ELF object mapped at `bias`, from its note in the first page (where linkers put
    it), or "" where it is not there."""
    first = bias + (min(vaddr for vaddr, _, _ in loads) & ~0xFFF)
    page = ctypes.string_at(first, 4096)
    at = page.find(struct.pack("<I", _NT_GNU_BUILD_ID) + b"GNU\x00")
    if at < 8:
        return ""
    namesz, descsz = struct.unpack_from("<II", page, at - 8)
    if namesz != 4 or not 8 <= descsz <= 64 or at + 8 + descsz > len(page):
        return ""
    return page[at + 8:at + 8 + descsz].hex()


def _known_paths(bias: int, loads: list[_Segment], known: dict[str, Any]) -> tuple[int, ...]:
    """The addresses `known` gives for the library mapped at `bias`, or () where it is not the library they were
    found in (another build id or other segments) or one of them holds no /proc, /sys or /dev text."""
    try:
        same = known["loads"] == [list(load) for load in loads] and known["build_id"] == _build_id(bias, loads)
        addresses = tuple(sorted(bias + int(offset) for offset in known["offsets"]))
    except (KeyError, TypeError, ValueError):
        return ()
    spans = [(bias + vaddr, bias + vaddr + filesz) for vaddr, filesz, flags in loads if not flags & (_PF_W | _PF_X)]
    if not same or not addresses or not all(
            any(start <= address <= end - 6 for start, end in spans) and ctypes.string_at(address, 6).startswith(_HOST_TREES)
            for address in addresses):
        return ()
    return addresses


# Syscalls newer than these tables: the filter refuses by list, so a call a later kernel adds would reach it unjudged,
# as open_tree_attr (467, Linux 6.15: open_tree with mount attributes, beside the refused open_tree) did until it was
# listed; listns (Linux 6.19) lists the machine's namespaces. Every number from here up (the same on x86_64 and
# aarch64 since 424) answers ENOSYS, as on a kernel without it: libc falls back where it has a fallback. Raise it only
# after judging each call below the new bound.
FIRST_UNJUDGED_SYSCALL = 470


def _seccomp_program(machine: str, own_pid: int, deny_metadata: bool, threads: bool = True,
                     last_channel: int = 3, host_paths: tuple[int, ...] = (), call_answers: bool = False,
                     stat_from: int = 0) -> bytes | None:
    if machine not in _ARCHES:
        return None
    arch = _ARCHES[machine]
    skipped = _MODE_AND_TIME_CHANGES[machine] if deny_metadata else ()
    denied = arch.denied + tuple(n for n in arch.metadata if n not in skipped and deny_metadata)
    ld, jeq, jset, jge, ret, rsh, and_, ja = 0x20, 0x15, 0x45, 0x35, 0x06, 0x74, 0x54, 0x05
    nr, ip, arg0, arg1, arg2, arg3, arg5 = 0, 8, 16, 24, 32, 40, 56  # offsets in seccomp_data: the number, the
    # instruction pointer's low half, low halves of arguments
    # Instructions as (code, jt label, jf label, k); labels resolve to relative jumps below.
    prog: list[tuple[int, str | None, str | None, int]] = [
        (ld, None, None, 4), (jeq, "skip", "next", arch.audit_arch), (ret, None, None, SECCOMP_RET_KILL_PROCESS),
        (ld, None, None, nr)
    ]
    if machine == "x86_64":  # x32 ABI numbers alias the real ones
        prog += [(jge, "next", "skip", 0x40000000), (ret, None, None, SECCOMP_RET_KILL_PROCESS)]
    prog += [(jge, "next", "skip", FIRST_UNJUDGED_SYSCALL), (ret, None, None, SECCOMP_RET_ERRNO | errno.ENOSYS)]
    # The deny list jumps to a return of its own right after it (an always-taken jump steps over that return): a
    # conditional jump reaches 255 instructions at most, and the shared returns lie past the argument checks.
    prog += [(jeq, "denied", "next", n) for n in denied] + [(jge, "skip", "skip", 0)]
    labels: dict[str | None, int] = {"denied": len(prog)}
    prog.append((ret, None, None, SECCOMP_RET_ERRNO | errno.EPERM))
    prog += [(jeq, "enotsup", "next", n) for n in arch.xattr_reads]
    prog += [(jeq, "self", "next", n) for n in arch.self_only]
    prog += [(jeq, "self_or_zero", "next", n) for n in (arch.prlimit, *_ABOUT_A_PROCESS[machine])]
    prog += [(jeq, "enosys", "next", n) for n in (*_SCHEDULING_READS[machine], *_HOST_IDENTITY[machine],
                                                   *_FILE_FACTS[machine], *_MEMORY_POLICY[machine])]
    prog += [(jeq, "done", "next", n) for n in (_FLOCK[machine], _GETPPID[machine], *skipped)]
    prog += [(jeq, "enosys", "next", n) for n in _FUTEX2_CALLS]
    prog.append((jeq, "futex", "next", _FUTEX[machine]))
    prog += [(jeq, "cpu_clock", "next", n) for n in _CLOCK_CALLS[machine]]
    prog += [(jeq, "own_socket_option", "next", _GETSOCKOPT[machine])]
    prog += [(jeq, "enosys", "next", n) for n in (*_SECURITY_MODULE_CALLS, *_ANON_INODE_MAKERS[machine],
                                                   _MEMBARRIER[machine])]
    prog.append((jeq, "seccomp", "next", _SECCOMP[machine]))
    stats, copies = _CHANNEL_IDENTITY[machine]
    # Where the handler makes the stat calls (`stat_from`: right after its syscall instruction), they are trapped
    # for it from anywhere else, the channels' refusal first.
    by_path, by_descriptor = _STAT_CALLS.get(machine, ((), ())) if call_answers and stat_from else ((), ())
    prog += [(jeq, "stat_answer", "next", n) for n in by_path]
    prog += [(jeq, "channel_stat" if n in by_descriptor else "channel", "next", n) for n in (*stats, *copies)]
    close, close_range = _CHANNEL_CLOSE[machine]
    prog += [(jeq, "channel_close", "next", close), (jeq, "channel_close_range", "next", close_range)]
    prog += [(jeq, "fcntl", "next", arch.fcntl),
             (jeq, "ioctl", "next", arch.ioctl), (jeq, "prctl", "next", arch.prctl),
             (jeq, "clone" if threads else "eperm", "next", arch.clone),
             (jeq, "enosys", "next", arch.clone3), (jeq, "enosys", "next", SYS_OPENAT2),
             (jeq, "trap" if call_answers else "enosys", "next", _SYSINFO[machine])]
    statfs_calls, times = _HOST_STATISTICS[machine]
    prog += [(jeq, "enosys", "next", n) for n in statfs_calls]
    if call_answers:  # the SIGSYS handler answers them (install_call_answers): its action stays
        prog.append((jeq, "sigaction", "next", _RT_SIGACTION[machine]))
    prog += [(jeq, "trap" if call_answers else "done", "next", times), (jeq, "mmap", "next", _MMAP[machine]),
             (jeq, "fallocate", "next", _FALLOCATE[machine])]
    disk = arch.disk
    prog += [(jeq, f"open{index}", "next", n) for n, index in disk.opens]
    prog += [(jeq, "done", "next", n) for n in disk.done]
    prog += [(jeq, "madvise", "next", disk.madvise), (jeq, "pwritev2", "next", disk.pwritev2)]
    preadv2, cache_probes = _PAGE_CACHE_PROBES[machine]
    prog += [(jeq, "eperm", "next", n) for n in cache_probes] + [(jeq, "preadv2", "next", preadv2)]
    prog.append((ret, None, None, SECCOMP_RET_ALLOW))

    def block(label: str, *code: tuple[int, str | None, str | None, int]) -> None:
        labels[label] = len(prog)  # BPF only jumps forward, so the argument checks and returns come last
        prog.extend(code)

    opens = sorted({index for _, index in disk.opens})
    for index in opens:  # the open checks lie past every other block (a long jump): the others stay within reach
        block(f"open{index}", (ja, f"far_open{index}", None, 0))
    block("self", (ld, None, None, arg0), (jeq, "allow", "eperm", own_pid))
    # rt_sigaction(SIGSYS, act, ...) with an action: EPERM; reading it (act NULL) and every other signal pass.
    block("sigaction", (ld, None, None, arg0), (jeq, "next", "allow", SIGSYS), (ld, None, None, arg1),
          (jeq, "next", "eperm", 0), (ld, None, None, arg1 + 4), (jeq, "allow", "eperm", 0))
    block("trap", (ret, None, None, SECCOMP_RET_TRAP))
    block("self_or_zero", (ld, None, None, arg0), (jeq, "allow", "next", 0), (jeq, "allow", "eperm", own_pid))
    own_clock = (~own_pid << 3) & 0xFFFFFFF8
    block("cpu_clock", (ld, None, None, arg0), (jge, "next", "allow", 0x80000000),
          (jset, "allow", "next", CPUCLOCK_PERTHREAD), (and_, None, None, 0xFFFFFFF8),
          (jeq, "allow", "next", 0xFFFFFFF8), (jeq, "allow", "einval", own_clock))
    block("own_socket_option", (ld, None, None, arg1), (jeq, "next", "eperm", SOL_SOCKET), (ld, None, None, arg2),
          *[(jeq, "allow", "next", o) for o in _OWN_SOCKET_OPTIONS], (ret, None, None, SECCOMP_RET_ERRNO | errno.EPERM))
    block("fcntl", (ld, None, None, arg1), *[(jeq, "eperm", "next", c) for c in _REFUSED_FCNTLS],
          *[(jeq, "channel", "next", c) for c in _CHANNEL_FCNTLS],
          *[(jeq, "done", "next", c) for c in _LOCK_SETTING_FCNTLS],
          (jeq, "fcntl_setfl", "next", F_SETFL), (ret, None, None, SECCOMP_RET_ALLOW))
    block("fcntl_setfl", (ld, None, None, arg2), (jset, "einval", "allow", disk.o_direct))
    block("channel", (ld, None, None, arg0), (jge, "allow", "eperm", last_channel + 1))  # AT_FDCWD lies above
    if by_path or by_descriptor:
        block("channel_stat", (ld, None, None, arg0), (jge, "stat_answer", "eperm", last_channel + 1))
        block("stat_answer", (ld, None, None, ip), (jeq, "next", "stat_trap", stat_from & 0xFFFFFFFF),
              (ld, None, None, ip + 4), (jeq, "allow", "stat_trap", stat_from >> 32))
        block("stat_trap", (ret, None, None, SECCOMP_RET_TRAP))
    block("channel_close", (ld, None, None, arg0), (jge, "allow", "done", last_channel + 1))
    block("channel_close_range", (ld, None, None, arg0), (jge, "allow", "enosys", last_channel + 1))
    block("prctl", (ld, None, None, arg0), *[(jeq, "eperm", "next", o) for o in _REFUSED_PRCTLS],
          (ret, None, None, SECCOMP_RET_ALLOW))
    block("madvise", (ld, None, None, arg2), (jeq, "done", "next", MADV_COLD),
          (jeq, "done", "next", MADV_MERGEABLE), (jeq, "done", "allow", MADV_PAGEOUT))
    block("mmap", (ld, None, None, arg3), (jset, "enosys", "allow", MAP_HUGETLB))
    block("fallocate", (ld, None, None, arg1), (jeq, "allow", "enotsup", 0))
    block("seccomp", (ld, None, None, arg0), (jeq, "enosys", "allow", SECCOMP_SET_MODE_FILTER))  # any flags
    block("pwritev2", (ld, None, None, arg5), (jset, "enotsup", "allow", RWF_SYNCS))
    block("preadv2", (ld, None, None, arg5), (jset, "enotsup", "allow", RWF_NOWAIT))
    block("ioctl", (ld, None, None, arg0), (jge, "next", "channel_ioctl", last_channel + 1), (ld, None, None, arg1),
          *[(jeq, "eperm", "next", c) for c in _PTY_IOCTLS],
          (jge, "next", "ioctl_type", _SOCKET_IOCTLS[0]),
          (jge, "ioctl_type", "eperm", _SOCKET_IOCTLS[1]))
    block("ioctl_type", (ld, None, None, arg1), (rsh, None, None, 8), (and_, None, None, 0xFF),
          *[(jeq, "eperm", "next", t) for t in (*_FILE_SYSTEM_IOCTL_TYPES, _RANDOM_IOCTL_TYPE)],
          (ret, None, None, SECCOMP_RET_ALLOW))
    block("channel_ioctl", (ld, None, None, arg1), *[(jeq, "allow", "next", c) for c in _CHANNEL_OWN_FLAG_IOCTLS],
          (ret, None, None, SECCOMP_RET_ERRNO | errno.ENOTTY))
    block("clone", (ld, None, None, arg0), (jset, "einval", "next", CLONE_PIDFD),
          (jset, "allow", "eperm", CLONE_THREAD))  # no CLONE_THREAD: a fork
    block("futex", (ld, None, None, arg1), (and_, None, None, ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)),
          *[(jeq, "enosys", "next", c) for c in _FUTEX_PI], (ld, None, None, arg1),
          (jset, "allow", "next" if threads else "enosys", FUTEX_PRIVATE_FLAG),
          *([(and_, None, None, ~FUTEX_CLOCK_REALTIME), *[(jeq, "eagain", "next", c) for c in _FUTEX_WAITS],
             (ret, None, None, SECCOMP_RET_ERRNO | errno.ENOSYS)] if threads else []))
    for label, action in (("allow", SECCOMP_RET_ALLOW), ("eperm", SECCOMP_RET_ERRNO | errno.EPERM),
                          ("enotsup", SECCOMP_RET_ERRNO | errno.EOPNOTSUPP),
                          ("einval", SECCOMP_RET_ERRNO | errno.EINVAL),
                          ("eagain", SECCOMP_RET_ERRNO | errno.EAGAIN),
                          ("done", SECCOMP_RET_ERRNO | 0),  # errno 0: the call returns 0 without running
                          # clone3 hides its flags from BPF; ENOSYS makes libc fall back to clone
                          ("enosys", SECCOMP_RET_ERRNO | errno.ENOSYS)):
        block(label, (ret, None, None, action))
    # Past the shared returns (the blocks above keep them within a short jump's reach), with returns of their own.
    highs = sorted({address >> 32 for address in host_paths})
    for index in opens:
        path = arg0 + 8 * (index - 1)  # the path comes right before the flags in open and openat
        block(f"far_open{index}")
        for group, high in enumerate(highs):  # the C library's own /proc and /sys paths, by address: ENOENT
            other = f"far_open{index}_{group + 1}" if group + 1 < len(highs) else f"open_flags{index}"
            lows = sorted({address & 0xFFFFFFFF for address in host_paths if address >> 32 == high})
            block(f"far_open{index}_{group}", (ld, None, None, path + 4), (jeq, "next", other, high),
                  (ld, None, None, path), *[(jeq, "open_enoent", "next", low) for low in lows], (ja, other, None, 0))
        block(f"open_flags{index}", (ld, None, None, arg0 + 8 * index),
              (jset, "open_einval", "open_allow", disk.o_direct | O_DSYNC))
    block("open_allow", (ret, None, None, SECCOMP_RET_ALLOW))
    block("open_einval", (ret, None, None, SECCOMP_RET_ERRNO | errno.EINVAL))
    block("open_enoent", (ret, None, None, SECCOMP_RET_ERRNO | errno.ENOENT))
    # One pass over the ~450 instructions (the child builds the program on every call: a list and a bytes copy per
    # instruction took 0.55 ms of its CPU).
    fixed, pack, words = _FIXED_JUMPS, _INSTRUCTION.pack, []
    for i, (code, jt, jf, k) in enumerate(prog):
        t, f = fixed.get(jt), fixed.get(jf)
        t = labels[jt] - i - 1 if t is None else t
        f = labels[jf] - i - 1 if f is None else f
        if code == ja:  # the one jump whose offset (32 bits) lies in k: any distance forward
            t, f, k = 0, 0, t
        if t > 255 or f > 255:  # conditional jumps reach 255 instructions at most
            raise ValueError(f"seccomp program too long for a jump at instruction {i}: regroup the deny lists")
        words.append(pack(code, t, f, k & 0xFFFFFFFF))
    return b"".join(words)


_FIXED_JUMPS: dict[str | None, int] = {None: 0, "next": 0, "skip": 1}  # the jumps that name no label
_INSTRUCTION = struct.Struct("HBBI")  # struct sock_filter: code, jt, jf, k


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_seccomp(libc: ctypes.CDLL, deny_metadata: bool, threads: bool = True, last_channel: int = 3,
                    host_paths: tuple[int, ...] = (), memory_bytes: int = 0, devices: Sequence[int] = (),
                    kept_devices: Sequence[int] = ()) -> str | None:
    """Deny sockets (and socket ioctls), fork/exec, signals to other processes (also through SIGIO owners and
    prlimit), ptrace, mounts, namespaces, cwd changes, links, handle-based opens, extended attribute reads by
    path, file-system ioctls (inode flags, fs-verity, btrfs subvolumes) and the random device's (the machine's entropy
    pool), IPC objects that outlive the run,
    host-wide settings and writeback (sync), and disk bandwidth the limits do not count (O_DIRECT and O_DSYNC
    opens, `openat2`, RWF_DSYNC/RWF_SYNC writes; fsync, msync, fadvise and page-evicting madvise done without
    running), what tells of the host (uname, getrusage's inherited peak, the scheduling settings it passed on,
    its pid through getppid, which answers 0) and
    state kept on host inodes (locks set without running) at the syscall level; with
    `deny_metadata` (the code still runs as the uid that owns the host's files), also chown and xattr changes, which
    Landlock lets pass, and chmod and utime return 0 without running (scratch files' too: harmless copies make them);
    without `threads`, every clone (RLIMIT_NPROC, which would refuse them otherwise, never binds uid 0); shared futex
    operations (keyed on a host file's inode for every process that maps it) never sleep or wake: refused, and with
    `threads` a shared wait returns EAGAIN at once; the host's channels (descriptors 0 to `last_channel`) neither
    answer fstat (their inode numbers are the machine's counter at the spawn) nor are copied, nor answer ioctls but
    their own descriptor flags, and their numbers are never freed; no descriptor of the boot-time anonymous inode
    (epoll, eventfd, timerfd, signalfd, Landlock rulesets, seccomp listeners) is made, nor a pidfd of a thread (the
    machine's process counter), nor a seccomp filter of the code's own (each call an audit record in the host's log),
    nor a name of its own (printed raw in the kernel's log), and no membarrier command
    (waits on, or interrupts, every CPU of the machine) runs; the C library's own paths under /proc and /sys are
    not opened (ENOENT), where `host_paths` (`c_library_host_paths`) names their addresses; times() and sysinfo()
    are answered with fixed values (`install_call_answers`; sysinfo's memory `memory_bytes`) where the architecture
    has the answer's code, and there the stat calls show the run's own file systems (`devices`: their real st_dev)
    at fixed device numbers, and the access time of a file on any other device (but `kept_devices`: the scratch's,
    where it is none of the run's mounts) as its modification time."""
    machine = os.uname().machine
    if machine not in _ARCHES:
        return f"no seccomp syscall table for the {machine} architecture"
    answers = install_call_answers(libc, machine, memory_bytes, devices, kept_devices)
    # A run that mounted nothing (no mount namespace) has no device number to show otherwise: its stat calls run
    # untrapped (a trapped one costs a signal delivery, some microseconds).
    program = _seccomp_program(machine, os.getpid(), deny_metadata, threads, last_channel, host_paths,
                               bool(answers), answers if devices else 0)
    if program is None:
        return f"no seccomp syscall table for the {machine} architecture"
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buf))
    args = (ctypes.c_ulong(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog))
    if int(libc.prctl(*args, ctypes.c_ulong(0), ctypes.c_ulong(0))) == 0:
        return None
    return f"prctl(PR_SET_SECCOMP) failed ({_errno_text(ctypes.get_errno())})"
