"""Kernel-level isolation for the sandbox child: namespaces, mounts, privilege drop, rlimits and seccomp.

Executed by `_sandbox_child.py` inside the freshly started child, before any untrusted code runs and possibly
as root. Every layer is best effort: it either takes effect and is named in the returned layer list, or is
skipped, so the sandbox degrades (to rlimits + the audit hook) where a container forbids a layer instead of
failing. Standard library only; it is loaded by path, never through the `coworkenv` package.
"""

from __future__ import annotations

import ctypes
import math
import os
import resource
import struct
from collections.abc import Sequence

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_THREAD = 0x00010000
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1
MOUNT_ATTR_NOSUID = 0x2
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
EPERM = 1
ENOSYS = 38
# Unprivileged uids handed to sandboxed code; far above any account a container image defines.
SANDBOX_UID_BASE = 1_000_000
SANDBOX_UID_SPAN = 1 << 24
NOBODY = 65534

# Syscall numbers per architecture: (audit arch, mount_setattr, denied, signal-to-self-only, clone, clone3).
_X86_64_DENIED = (
    41, 53, 57, 58, 59, 322,  # socket, socketpair, fork, vfork, execve, execveat
    101, 310, 311,  # ptrace, process_vm_readv, process_vm_writev
    165, 166, 272, 308, 155, 161,  # mount, umount2, unshare, setns, pivot_root, chroot
    428, 429, 430, 431, 432, 433, 442,  # new mount API
    424, 434, 438,  # pidfd_send_signal, pidfd_open, pidfd_getfd
    321, 298, 250, 248, 249, 323,  # bpf, perf_event_open, keyctl, add_key, request_key, userfaultfd
    425, 426, 427,  # io_uring
    246, 320, 175, 313, 176, 169, 167, 168, 163,  # kexec, modules, reboot, swap, acct
    133, 259, 172, 173,  # mknod, mknodat, iopl, ioperm
)
_AARCH64_DENIED = (
    198, 199, 221, 281,  # socket, socketpair, execve, execveat
    117, 270, 271,  # ptrace, process_vm_readv, process_vm_writev
    40, 39, 97, 268, 41, 51,  # mount, umount2, unshare, setns, pivot_root, chroot
    428, 429, 430, 431, 432, 433, 442,  # new mount API
    424, 434, 438,  # pidfd_send_signal, pidfd_open, pidfd_getfd
    280, 241, 219, 217, 218, 282,  # bpf, perf_event_open, keyctl, add_key, request_key, userfaultfd
    425, 426, 427,  # io_uring
    104, 294, 105, 273, 106, 142, 224, 225, 89,  # kexec, modules, reboot, swap, acct
    33,  # mknodat
)
_ARCHES: dict[str, tuple[int, int, tuple[int, ...], tuple[int, ...], int, int]] = {
    # kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo may only target the child itself.
    "x86_64": (0xC000003E, 442, _X86_64_DENIED, (62, 200, 234, 129, 297), 56, 435),
    "aarch64": (0xC00000B7, 442, _AARCH64_DENIED, (129, 130, 131, 138, 240), 220, 435),
}


def load_libc() -> ctypes.CDLL:
    """The C library of this process, with errno reporting."""
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def isolate_network(libc: ctypes.CDLL) -> str | None:
    """Move the child into an empty network namespace (no interfaces up, not even loopback)."""
    flags = CLONE_NEWNET if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNET
    if libc.unshare(ctypes.c_int(flags)) != 0:
        return None
    return "netns" if flags == CLONE_NEWNET else "userns+netns"


def _mount(libc: ctypes.CDLL, src: str | None, dst: str, fstype: str | None, flags: int, data: str | None) -> None:
    enc = [None if s is None else s.encode() for s in (src, dst, fstype, data)]
    _check(libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {dst}")


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def isolate_filesystem(
    libc: ctypes.CDLL, run_dir: str, scratch: str, lib_dirs: Sequence[str], scratch_bytes: int, uid: int, gid: int
) -> tuple[list[str], list[str]]:
    """Give the child a private mount namespace: read-only root, a size-capped tmpfs scratch, the stdlib re-bound.

    Returns the layers that took effect and the sys.path the child must use afterwards (the stdlib bound under
    `run_dir`, so that it stays importable once privileges are dropped even if it lives under a 0700 home).
    """
    if os.geteuid() != 0 or libc.unshare(ctypes.c_int(CLONE_NEWNS)) != 0:
        return [], list(lib_dirs)
    try:  # nothing below may leak into the host's mount table, so stop unless propagation is cut off
        _mount(libc, None, "/", None, MS_REC | MS_PRIVATE, None)
    except OSError:
        return [], list(lib_dirs)
    layers = ["mountns"]
    new_path = []
    try:
        for i, src in enumerate(lib_dirs):
            dst = os.path.join(run_dir, f"lib{i}")
            os.mkdir(dst, 0o755)
            _mount(libc, src, dst, None, MS_BIND | MS_REC, None)
            new_path.append(dst)
    except OSError:
        new_path = list(lib_dirs)
    attr = _MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0, 0)
    arch = _ARCHES.get(os.uname().machine)
    if arch is not None and libc.syscall(
        ctypes.c_long(arch[1]), ctypes.c_long(AT_FDCWD), ctypes.c_char_p(b"/"), ctypes.c_long(AT_RECURSIVE),
        ctypes.byref(attr), ctypes.c_long(ctypes.sizeof(attr)),
    ) == 0:
        layers.append("ro-root")
    opts = f"size={max(scratch_bytes, 4096)},nr_inodes=4096,mode=0700,uid={uid},gid={gid}"
    try:
        _mount(libc, "tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, opts)
        layers.append("scratch-tmpfs")
    except OSError:
        pass
    return layers, new_path


def pick_sandbox_ids() -> tuple[int, int]:
    """A fresh unprivileged uid/gid for this run (so process and file limits are not shared), or nobody."""
    candidate = SANDBOX_UID_BASE + int.from_bytes(os.urandom(4), "little") % SANDBOX_UID_SPAN
    try:
        with open("/proc/self/uid_map") as fh:
            ranges = [tuple(int(x) for x in line.split()) for line in fh if line.strip()]
    except OSError:
        return NOBODY, NOBODY
    if any(inside <= candidate < inside + count for inside, _, count in ranges):
        return candidate, candidate
    return NOBODY, NOBODY


def readable_by_anyone(paths: Sequence[str]) -> bool:
    """Whether every path and all its ancestors let an unrelated user traverse and read them."""
    for path in paths:
        parts = os.path.abspath(path).split("/")
        for depth in range(1, len(parts) + 1):
            try:
                mode = os.stat("/".join(parts[:depth]) or "/").st_mode
            except OSError:
                return False
            if not mode & 0o001 or (depth == len(parts) and not mode & 0o004):
                return False
    return True


def drop_privileges(uid: int, gid: int) -> bool:
    """Become an unprivileged user with no supplementary groups; False where the process may not."""
    if os.geteuid() != 0:
        return False
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    return True


def apply_rlimits(cpu_seconds: float, memory_bytes: int, file_size_bytes: int, max_processes: int) -> None:
    """Cap CPU time (SIGXCPU, then SIGKILL one second later), address space, file size, processes, fds, cores."""
    cpu = max(1, math.ceil(cpu_seconds))
    wanted = {
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (memory_bytes, memory_bytes),
        resource.RLIMIT_FSIZE: (file_size_bytes, file_size_bytes),
        resource.RLIMIT_NPROC: (max_processes, max_processes),
        resource.RLIMIT_NOFILE: (64, 64),
        resource.RLIMIT_CORE: (0, 0),
    }
    for which, (soft, hard) in wanted.items():
        _, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        resource.setrlimit(which, (soft, hard))


def set_no_new_privs(libc: ctypes.CDLL) -> bool:
    """Forbid gaining privileges through exec (also required for an unprivileged seccomp filter)."""
    return int(libc.prctl(*(ctypes.c_ulong(v) for v in (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)))) == 0


def _seccomp_program(machine: str, own_pid: int) -> bytes | None:
    if machine not in _ARCHES:
        return None
    audit_arch, _, denied, self_only, clone_nr, clone3_nr = _ARCHES[machine]
    ld, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06
    # Instructions as (code, jt label, jf label, k); labels resolve to relative jumps below.
    prog: list[tuple[int, str | None, str | None, int]] = [
        (ld, None, None, 4), (jeq, "next", "kill", audit_arch), (ld, None, None, 0)
    ]
    if machine == "x86_64":
        prog.append((jge, "kill", "next", 0x40000000))  # x32 ABI numbers alias the real ones
    prog += [(jeq, "eperm", "next", nr) for nr in denied]
    prog += [(jeq, "self", "next", nr) for nr in self_only]
    prog += [(jeq, "clone", "next", clone_nr), (jeq, "enosys", "next", clone3_nr)]
    prog.append((ret, None, None, SECCOMP_RET_ALLOW))
    labels: dict[str, int] = {"self": len(prog)}  # BPF only jumps forward, so the returns come last
    prog += [(ld, None, None, 16), (jeq, "allow", "eperm", own_pid)]
    labels["clone"] = len(prog)  # threads only: a clone without CLONE_THREAD is a fork
    prog += [(ld, None, None, 16), (jset, "allow", "eperm", CLONE_THREAD)]
    for label, action in (("allow", SECCOMP_RET_ALLOW), ("eperm", SECCOMP_RET_ERRNO | EPERM),
                          # clone3 hides its flags from BPF; ENOSYS makes libc fall back to clone
                          ("enosys", SECCOMP_RET_ERRNO | ENOSYS), ("kill", SECCOMP_RET_KILL_PROCESS)):
        labels[label] = len(prog)
        prog.append((ret, None, None, action))
    out = b""
    for i, (code, jt, jf, k) in enumerate(prog):
        rel = [0 if lab in (None, "next") else labels[lab] - i - 1 for lab in (jt, jf)]
        out += struct.pack("HBBI", code, rel[0], rel[1], k & 0xFFFFFFFF)
    return out


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_seccomp(libc: ctypes.CDLL) -> bool:
    """Deny sockets, fork/exec, signals to other processes, ptrace, mounts and namespaces at the syscall level."""
    program = _seccomp_program(os.uname().machine, os.getpid())
    if program is None:
        return False
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buf))
    args = (ctypes.c_ulong(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog))
    return int(libc.prctl(*args, ctypes.c_ulong(0), ctypes.c_ulong(0))) == 0
