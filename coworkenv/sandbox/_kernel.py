"""Kernel isolation of the sandbox child, privileged half: namespaces, mounts, uid and capability drop, rlimits.

Compiled by the host into the run's boot.bin and executed by `_child.py` (standard library only) inside the
freshly started child, before any untrusted code runs and possibly as root. Each layer either takes effect or says why not (the child reports that, the
host warns about it and a caller can refuse to run without it). The unprivileged layers that hold everywhere
(Landlock, seccomp) live in `_confine.py`.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import math
import os
import resource
from collections.abc import Sequence

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1
MOUNT_ATTR_NOSUID = 0x2
SYS_MOUNT_SETATTR = 442  # the same on x86_64 and aarch64
LINUX_CAPABILITY_VERSION_3 = 0x20080522
# Unprivileged uids handed to sandboxed code; far above any account a container image defines.
SANDBOX_UID_BASE = 1_000_000
SANDBOX_UID_SPAN = 1 << 24
NOBODY = 65534


def load_libc() -> ctypes.CDLL:
    """The C library of this process, with errno reporting."""
    return ctypes.CDLL(None, use_errno=True)


def errno_text(err: int | None = None) -> str:
    """`EPERM: Operation not permitted` for the last C call's errno (or `err`)."""
    err = ctypes.get_errno() if err is None else err
    return f"{errno.errorcode.get(err, str(err))}: {os.strerror(err)}"


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {errno_text(err)}")


def isolate_network(libc: ctypes.CDLL) -> tuple[list[str], str | None]:
    """Move the child into an empty network namespace (no interfaces up, not even loopback).

    Returns the layers that took effect and, when there are none, why."""
    flags = CLONE_NEWNET if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNET
    if libc.unshare(ctypes.c_int(flags)) != 0:
        return [], f"unshare({'CLONE_NEWNET' if flags == CLONE_NEWNET else 'CLONE_NEWUSER|CLONE_NEWNET'}) " \
                   f"failed ({errno_text()})"
    return (["netns"] if flags == CLONE_NEWNET else ["userns", "netns"]), None


def _mount(libc: ctypes.CDLL, src: str | None, dst: str, fstype: str | None, flags: int, data: str | None) -> None:
    enc = [None if s is None else s.encode() for s in (src, dst, fstype, data)]
    _check(libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {dst}")


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def isolate_filesystem(
    libc: ctypes.CDLL, run_dir: str, scratch: str, lib_dirs: Sequence[str], scratch_bytes: int, uid: int, gid: int
) -> tuple[list[str], list[str], dict[str, str]]:
    """Give the child a private mount namespace: read-only root, a size-capped tmpfs scratch, the stdlib re-bound.

    Returns the layers that took effect, the sys.path the child must use afterwards (the stdlib bound under
    `run_dir`, so that it stays importable once privileges are dropped even if it lives under a 0700 home) and
    why each missing layer is missing.
    """
    why = None
    if os.geteuid() != 0:
        why = "the sandbox runs without root, which a private mount namespace needs"
    elif libc.unshare(ctypes.c_int(CLONE_NEWNS)) != 0:
        why = f"unshare(CLONE_NEWNS) failed ({errno_text()})"
    else:
        try:  # nothing below may leak into the host's mount table, so stop unless propagation is cut off
            _mount(libc, None, "/", None, MS_REC | MS_PRIVATE, None)
        except OSError as exc:
            why = f"cannot make the mount namespace private ({exc.strerror})"
    if why is not None:
        return [], list(lib_dirs), {"mountns": why, "ro-root": why, "proc-hidden": why, "scratch-tmpfs": why}
    layers, missing = ["mountns"], {}
    new_path = []
    try:
        for i, src in enumerate(lib_dirs):
            dst = os.path.join(run_dir, f"lib{i}")
            os.mkdir(dst, 0o755)
            _mount(libc, src, dst, None, MS_BIND | MS_REC, None)
            new_path.append(dst)
    except OSError:
        new_path = list(lib_dirs)
    with contextlib.suppress(OSError):  # if this fails, the uid drop finds the run dir unreachable and says so
        _expose_run_dir(libc, run_dir)
    try:  # the host's /proc lists every process, its cmdline, and reopens descriptors through magic links
        _mount(libc, "tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV, "size=4096,nr_inodes=16,mode=0555")
        layers.append("proc-hidden")
    except OSError as exc:
        missing["proc-hidden"] = f"cannot mount an empty /proc ({exc.strerror})"
    attr = _MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0, 0)
    if os.uname().machine in ("x86_64", "aarch64") and libc.syscall(
        ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_long(AT_FDCWD), ctypes.c_char_p(b"/"), ctypes.c_long(AT_RECURSIVE),
        ctypes.byref(attr), ctypes.c_long(ctypes.sizeof(attr)),
    ) == 0:
        layers.append("ro-root")
    else:
        missing["ro-root"] = f"mount_setattr(MOUNT_ATTR_RDONLY) failed ({errno_text()})"
    opts = f"size={max(scratch_bytes, 4096)},nr_inodes=4096,mode=0700,uid={uid},gid={gid}"
    try:
        # noexec: no mapping of a file the code wrote as executable (an extension module, a shared library)
        _mount(libc, "tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts)
        layers.append("scratch-tmpfs")
    except OSError as exc:
        missing["scratch-tmpfs"] = f"cannot mount a tmpfs scratch ({exc.strerror})"
    return layers, new_path, missing


def _expose_run_dir(libc: ctypes.CDLL, run_dir: str) -> None:
    """Make `run_dir` reachable for another uid in this mount namespace when an ancestor is closed to others
    (a 0700 TMPDIR): cover the highest such ancestor with a small 0711 tmpfs that holds only the path down to
    `run_dir`, and bind `run_dir` (with the mounts below it) back in place. The host's other files under that
    ancestor disappear from the child's view as a bonus."""
    parts = run_dir.split("/")
    closed = next((depth for depth in range(2, len(parts)) if not os.stat("/".join(parts[:depth])).st_mode & 0o001),
                  None)
    if closed is None:
        return
    keep = os.open(run_dir, os.O_PATH | os.O_CLOEXEC)  # holds the run dir while its ancestor is covered
    try:
        _mount(libc, "tmpfs", "/".join(parts[:closed]), "tmpfs", MS_NOSUID | MS_NODEV, "size=65536,nr_inodes=64,mode=0711")
        for depth in range(closed + 1, len(parts) + 1):
            os.mkdir("/".join(parts[:depth]), 0o711)
        _mount(libc, f"/proc/self/fd/{keep}", run_dir, None, MS_BIND | MS_REC, None)
    finally:
        os.close(keep)


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


def unreachable_for_others(readable: Sequence[str], traversable: Sequence[str]) -> str | None:
    """The first of these paths an unrelated user could not use (an ancestor it cannot traverse, or a
    `readable` directory it cannot list), described; None when all are reachable."""
    for path, must_read in [(p, True) for p in readable] + [(p, False) for p in traversable]:
        parts = os.path.abspath(path).split("/")
        for depth in range(1, len(parts) + 1):
            here = "/".join(parts[:depth]) or "/"
            try:
                mode = os.stat(here).st_mode
            except OSError as exc:
                return f"{here} cannot be inspected ({exc.strerror})"
            if not mode & 0o001 or (must_read and depth == len(parts) and not mode & 0o004):
                return f"{here} (mode {mode & 0o777:o}) is not open to other users, so another uid could not use {path}"
    return None


def drop_privileges(uid: int, gid: int) -> None:
    """Become an unprivileged user with no supplementary groups (the caller checked that this process is root)."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities(libc: ctypes.CDLL) -> str | None:
    """Clear every capability (effective, permitted, inheritable), so that even a uid 0 left in place cannot set
    clocks, raise limits or override file permissions. Returns why it failed, or None."""
    header, data = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        return f"capset failed ({errno_text()})"
    check = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), check) != 0:
        return f"capget failed ({errno_text()})"
    if any(c.effective or c.permitted or c.inheritable for c in check):
        return "capabilities remain after capset"
    return None


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
