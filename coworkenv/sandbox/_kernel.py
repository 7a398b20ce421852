"""Kernel isolation of the sandbox child, privileged half: namespaces, mounts, uid and capability drop, rlimits.

Compiled by the host into the run's boot.bin and executed by `_child.py` (standard library only) inside the
freshly started child, before any untrusted code runs and possibly as root. Each layer either takes effect or says why not (the child reports that, the
host warns about it and a caller can refuse to run without it). The unprivileged layers that hold everywhere
(Landlock, seccomp) live in `_confine.py`.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import stat
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # collections.abc costs the child 2 ms of CPU a call to import; annotations are never evaluated
    from collections.abc import Sequence

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWTIME = 0x00000080
SANDBOX_HOSTNAME = b"sandbox"
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
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
MNT_DETACH = 2
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
    """Move the child into an empty network namespace (no interfaces up, not even loopback) and, with it, a UTS
    namespace named `sandbox` (the host's name is not the code's business: `os.uname()` raises no audit event).

    Returns the layers that took effect and, when there are none, why."""
    flags = CLONE_NEWNET if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNET
    outside = (os.geteuid(), os.getegid())  # a fresh user namespace maps none: read before it
    if libc.unshare(ctypes.c_int(flags)) != 0:
        return [], f"unshare({'CLONE_NEWNET' if flags == CLONE_NEWNET else 'CLONE_NEWUSER|CLONE_NEWNET'}) " \
                   f"failed ({errno_text()})"
    if flags != CLONE_NEWNET:
        map_own_ids(*outside)
    if libc.unshare(ctypes.c_int(CLONE_NEWUTS)) == 0:  # the same privilege as the network namespace
        libc.sethostname(SANDBOX_HOSTNAME, ctypes.c_size_t(len(SANDBOX_HOSTNAME)))
    return (["netns"] if flags == CLONE_NEWNET else ["userns", "netns"]), None


def map_own_ids(uid: int, gid: int) -> None:
    """In the user namespace this process just made, map its own uid and gid (outside) to nobody's (inside): what
    it reads of itself and of its files stays nobody, as unmapped ids read, and a tmpfs it mounts there can hold
    files (the kernel refuses to make an inode for ids its user namespace does not map: EOVERFLOW). Supplementary
    groups can no longer be changed (`setgroups` deny, which an unprivileged gid map needs; the host's stay, as
    before, where there was no map to change them under). Best effort: where it fails, the ids stay unmapped and no
    tmpfs scratch is mounted (`_ids_mapped`)."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{NOBODY} {uid} 1"), ("gid_map", f"{NOBODY} {gid} 1")):
        try:
            with open(f"/proc/self/{name}", "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError:
            return


def _ids_mapped() -> bool:
    """Whether this process's user namespace maps a uid and a gid (reads the host's /proc: before it is hidden)."""
    try:
        with open("/proc/self/uid_map", encoding="utf-8") as uids, open("/proc/self/gid_map", encoding="utf-8") as gids:
            return bool(uids.read().strip() and gids.read().strip())
    except OSError:
        return False


# The boot-relative clocks (CLOCK_MONOTONIC, CLOCK_BOOTTIME and their RAW/COARSE/ALARM kin, which time.monotonic
# and time.perf_counter read) count from the machine's boot: the host's uptime, and across runs how long it has
# been up since, answered in user space by the vDSO (no syscall to refuse). A time namespace shifts them for its
# members; the child enters one whose clocks start near zero.
TIMENS_START_NS = 1_000_000_000


def isolate_clocks(libc: ctypes.CDLL) -> str | None:
    """Move this (single-threaded) process into a fresh time namespace whose monotonic and boot clocks read about
    one second now, whatever the machine's uptime: unshare(CLONE_NEWTIME) makes it for the children to come, its
    offsets are written before any process is in it, and setns moves this process in (the vDSO follows). Needs the
    host's /proc (before the mount namespace hides it) and CAP_SYS_ADMIN in the current user namespace (root, or
    the one `isolate_network` made). Returns why it could not, or None."""
    if libc.unshare(ctypes.c_int(CLONE_NEWTIME)) != 0:
        return f"unshare(CLONE_NEWTIME) failed ({errno_text()})"
    try:
        offsets = []
        for name, clock in (("monotonic", time.CLOCK_MONOTONIC), ("boottime", time.CLOCK_BOOTTIME)):
            shift = TIMENS_START_NS - time.clock_gettime_ns(clock)
            offsets.append(f"{name} {shift // 10**9} {shift % 10**9}\n")
        with open("/proc/self/timens_offsets", "w", encoding="utf-8") as fh:
            fh.write("".join(offsets))
        fd = os.open("/proc/self/ns/time_for_children", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        return f"cannot set the time namespace's offsets ({exc.strerror})"
    try:
        if libc.setns(ctypes.c_int(fd), ctypes.c_int(CLONE_NEWTIME)) != 0:
            return f"setns(CLONE_NEWTIME) failed ({errno_text()})"
    finally:
        os.close(fd)
    return None


# The device number of every file system the run mounts (a new superblock, not a bind), in the order they were
# made: each took the lowest free number of the machine's anonymous devices, a live count of the machine's mounts,
# which the seccomp layer's SIGSYS handler shows as fixed numbers (`_confine.shown_devices`).
FRESH_DEVICES: list[int] = []


def _mount(libc: ctypes.CDLL, src: str | None, dst: str, fstype: str | None, flags: int, data: str | None) -> None:
    enc = [None if s is None else s.encode() for s in (src, dst, fstype, data)]
    _check(libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {dst}")
    if fstype is not None:
        FRESH_DEVICES.append(os.stat(dst).st_dev)


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


# The host's /proc and /sys answer stat (no audit event, no Landlock right) with the machine's live state: the link
# count of /proc is the number of processes on the machine (101-115 within a second here), /proc/<pid>/fd's size a
# process's open descriptors and /proc/<pid>/task's link count its threads (the host's among them), every new procfs
# inode (/proc/self, a /proc/self/fd entry) a number of the machine's inode counter (get_next_ino, which the refused
# pipes kept out of reach), /proc/self/fd/N's link the channels' inode numbers, and /sys/fs/cgroup's link counts how
# many cgroups there are (12 here). The machine's shared memory, message queue and pty folders
# and its runtime folder (/run: services' sockets and pid files) likewise: their times move whenever any process makes
# or removes an entry. Empty tmpfs mounts cover them all.
KERNEL_VIEWS = ("/proc", "/sys", "/dev/shm", "/dev/mqueue", "/dev/pts", "/run")


def hide_kernel_views(libc: ctypes.CDLL, keep: Sequence[str] = ()) -> None:
    """Cover each of KERNEL_VIEWS that exists with an empty tmpfs in this mount namespace, but for one holding a
    path of `keep` (the run directory, the standard library: a temp folder may lie in /dev/shm)."""
    kept = [os.path.realpath(path) for path in keep]
    for view in KERNEL_VIEWS:
        if os.path.isdir(view) and not os.path.islink(view) and not any(
                path == view or path.startswith(view + "/") for path in kept):
            _mount(libc, "tmpfs", view, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4096,nr_inodes=16,mode=0555")


def isolate_filesystem(
    libc: ctypes.CDLL, run_dir: str, scratch: str, visible: Sequence[str], scratch_bytes: int, uid: int, gid: int,
    hidden: Sequence[str] = (), user_namespace: bool = False,
) -> tuple[list[str], dict[str, str]]:
    """Give the child a private mount namespace whose root holds only `visible` (the stdlib, the libraries it
    loads, a few system files) and `scratch`, each at its own path, read-only except a size-capped tmpfs scratch;
    each folder of `hidden` (inside a visible one: the host's site-packages) is an empty folder there.

    What is not in that root does not exist for the code: no stat, access or open of a host path can tell it
    apart from a name that was never there. Without root, in the user namespace the network layer made
    (`user_namespace`), only /proc, /sys and the like are covered (`hide_kernel_views`): no minimal root there yet.
    Returns the layers that took effect and why each other is missing.
    """
    if os.geteuid() != 0 and user_namespace:
        return _hide_kernel_views_in_user_namespace(libc, (run_dir, scratch, *visible), scratch, scratch_bytes)
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
        return [], dict.fromkeys(("mountns", "min-root", "ro-root", "proc-hidden", "scratch-tmpfs"), why)
    layers, missing = ["mountns"], {}
    try:
        _pivot_to_minimal_root(libc, run_dir, (*visible, scratch), hidden)
        layers += ["min-root", "proc-hidden"]  # the new root's /proc is an empty directory
    except OSError as exc:
        missing["min-root"] = f"cannot build a root of only the stdlib and scratch ({exc})"
        try:  # the host's /proc lists every process, its cmdline, and reopens descriptors through magic links
            hide_kernel_views(libc, (run_dir, scratch, *visible))
            layers.append("proc-hidden")
        except OSError as proc_exc:
            missing["proc-hidden"] = f"cannot mount an empty /proc ({proc_exc.strerror})"
    attr = _MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0, 0)
    if os.uname().machine in ("x86_64", "aarch64") and libc.syscall(
        ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_long(AT_FDCWD), ctypes.c_char_p(b"/"), ctypes.c_long(AT_RECURSIVE),
        ctypes.byref(attr), ctypes.c_long(ctypes.sizeof(attr)),
    ) == 0:
        layers.append("ro-root")
    else:
        missing["ro-root"] = f"mount_setattr(MOUNT_ATTR_RDONLY) failed ({errno_text()})"
    _mount_scratch(libc, scratch, scratch_bytes, f",uid={uid},gid={gid}", layers, missing)
    return layers, missing


def _mount_scratch(libc: ctypes.CDLL, scratch: str, scratch_bytes: int, owner: str, layers: list[str],
                   missing: dict[str, str]) -> None:
    """Cover `scratch` with a tmpfs of `scratch_bytes` and 4096 entries (`owner`: its uid and gid options), which the
    kernel caps (ENOSPC) where the host's watch would look only every 0.1 s; noted in `layers` or `missing`."""
    opts = f"size={max(scratch_bytes, 4096)},nr_inodes=4096,mode=0700{owner}"
    try:
        # noexec: no mapping of a file the code wrote as executable (an extension module, a shared library)
        _mount(libc, "tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts)
        layers.append("scratch-tmpfs")
    except OSError as exc:
        missing["scratch-tmpfs"] = f"cannot mount a tmpfs scratch ({exc.strerror})"


def _hide_kernel_views_in_user_namespace(
    libc: ctypes.CDLL, keep: Sequence[str], scratch: str, scratch_bytes: int,
) -> tuple[list[str], dict[str, str]]:
    """A private mount namespace, owned by the user namespace this process made (where it holds every capability),
    whose /proc, /sys and the like are empty (`hide_kernel_views`) and whose scratch is a size-capped tmpfs (without
    it the host measured the folder every 0.1 s, and a run wrote 86 MiB past a 16 MiB cap in between); the layers
    that took effect and why each other is missing."""
    not_built = "the sandbox runs without root: in its user namespace only /proc, /sys and the like are hidden"
    missing = dict.fromkeys(("min-root", "ro-root"), not_built)
    mapped = _ids_mapped()
    try:
        _check(libc.unshare(ctypes.c_int(CLONE_NEWNS)), "unshare(CLONE_NEWNS)")
        _mount(libc, None, "/", None, MS_REC | MS_PRIVATE, None)  # nothing below may reach the host's mount table
    except OSError as exc:
        why = f"in a user namespace: {exc}"
        return [], {**missing, **dict.fromkeys(("mountns", "proc-hidden", "scratch-tmpfs"), why)}
    layers = ["mountns"]
    try:
        hide_kernel_views(libc, keep)
        layers.append("proc-hidden")
    except OSError as exc:
        missing["proc-hidden"] = f"cannot cover /proc and /sys in a user namespace ({exc})"
    if mapped:  # owned by this process (the host's uid outside)
        _mount_scratch(libc, scratch, scratch_bytes, "", layers, missing)
    else:
        missing["scratch-tmpfs"] = "its user namespace maps no uid and gid, without which a tmpfs holds no file"
    return layers, missing


def _pivot_to_minimal_root(libc: ctypes.CDLL, run_dir: str, paths: Sequence[str], hidden: Sequence[str] = ()) -> None:
    """Make a small tmpfs under `run_dir` the root of this mount namespace, holding each of `paths` (bound at the
    same path), the folders on the way (0711: traversable, not listable) and an empty /proc, each folder of `hidden`
    covered by an empty one; drop the old root."""
    machine = os.uname().machine
    if machine not in SYS_PIVOT_ROOT:
        raise OSError(errno.ENOSYS, f"no pivot_root syscall number for {machine}")
    root = os.path.join(run_dir, "root")
    os.mkdir(root, 0o711)
    _mount(libc, "tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=65536,nr_inodes=1024,mode=0711")
    try:
        device = os.stat(root).st_dev
        devices = [path for path in paths if path.startswith("/dev/") and os.path.exists(path)
                   and stat.S_ISCHR(os.stat(path).st_mode)]
        for path in paths:
            if path not in devices and os.path.lexists(path):
                _graft(libc, root, device, path)
        for path in hidden:  # after the grafts: the folder exists in the new root, bound with its parent (at its real
            # path: a symlink on the way was copied as it is, and would lead out of the new root before the pivot)
            _mount(libc, "tmpfs", root + os.path.realpath(path), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                   "size=4096,nr_inodes=1,mode=0555")
        _make_device_nodes(libc, root, devices)
        os.mkdir(root + "/proc", 0o555)
        os.mkdir(root + "/old-root", 0o700)
        _check(libc.syscall(ctypes.c_long(SYS_PIVOT_ROOT[machine]), ctypes.c_char_p(root.encode()),
                            ctypes.c_char_p(f"{root}/old-root".encode())), "pivot_root")
    except OSError:
        libc.umount2(root.encode(), ctypes.c_int(MNT_DETACH))
        raise
    os.chdir("/")
    _check(libc.umount2(b"/old-root", ctypes.c_int(MNT_DETACH)), "umount the old root")
    os.rmdir("/old-root")


def _make_device_nodes(libc: ctypes.CDLL, root: str, devices: Sequence[str]) -> None:
    """Give `root` a /dev of its own holding fresh nodes for `devices` (/dev/null, /dev/zero, /dev/urandom): the
    host's nodes were made when its /dev was, at boot or at the container's start, and their times (stat, no audit
    event) told when. The same device numbers and modes, made now; a host that may not make nodes binds its own."""
    if not devices:
        return
    os.mkdir(root + "/dev", 0o755)
    _mount(libc, "tmpfs", root + "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=4096,nr_inodes=16,mode=0755")
    for path in devices:
        st = os.stat(path)
        inside = root + "/dev/" + os.path.basename(path)
        try:
            os.mknod(inside, stat.S_IFCHR | (st.st_mode & 0o777), st.st_rdev)
            os.chmod(inside, st.st_mode & 0o777)  # mknod honours the umask
        except OSError:  # no CAP_MKNOD here (a user namespace, a devices cgroup): the host's node, times and all
            os.close(os.open(inside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
            _mount(libc, path, inside, None, MS_BIND, None)


def _graft(libc: ctypes.CDLL, root: str, device: int, path: str, hops: int = 0) -> None:
    """Bind host `path` at the same path under `root` (the file system `device`), creating the folders on the way
    and copying the symlinks on the way (then following them), so that the path resolves there as it does here."""
    parts = [part for part in path.split("/") if part]
    here = ""
    for i, part in enumerate(parts):
        here += "/" + part
        inside = root + here
        mode = os.lstat(here).st_mode
        made = os.path.lexists(inside)  # for an earlier path, or inside one bound already
        if not made and os.stat(os.path.dirname(inside)).st_dev != device:
            raise OSError(errno.EXDEV, f"{inside} would be written outside the new root")
        if stat.S_ISLNK(mode):
            if not made:
                os.symlink(os.readlink(here), inside)
            if hops < 8:  # the rest of the path continues wherever the link points
                rest = "/".join(parts[i + 1:])
                _graft(libc, root, device, os.path.realpath(here) + ("/" + rest if rest else ""), hops + 1)
            return
        if made:
            continue
        if i < len(parts) - 1 or stat.S_ISDIR(mode):
            os.mkdir(inside, 0o711)
        else:
            os.close(os.open(inside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    _mount(libc, path, root + path, None, MS_BIND | MS_REC, None)


def join_cgroup(procs: str) -> str | None:
    """Move this process into a cgroup the host made for the run (`procs`: its `cgroup.procs` file), so that
    everything it allocates or starts from now on, kernel memory and threads included, counts against the group's
    caps. Returns why it could not, or None.

    Where the group lists this process already (the host moved it in right after the spawn: `_host._join_early`),
    nothing is written: a write moves nothing then, yet takes the kernel's cgroup migration lock, which on a cgroup v1
    host waited an RCU grace period (11 ms of wall a call measured here, no CPU) once the host's own move was older
    than one grace period, as it is by the time the interpreter has started."""
    pid = str(os.getpid()).encode("ascii")
    try:
        if listed(procs, pid):
            return None
        with open(procs, "wb") as fh:
            fh.write(pid)
        joined = listed(procs, pid)
    except OSError as exc:
        return f"cannot join the cgroup {procs} ({exc.strerror})"
    return None if joined else f"joined the cgroup {procs}, yet it does not list this process"


def listed(procs: str, pid: bytes) -> bool:
    """Whether the `cgroup.procs` file `procs` lists the process `pid` (as this process's pid namespace numbers it)."""
    with open(procs, "rb") as fh:  # binary: a text file's codec (ascii) was a module to import, 0.15 ms a call
        return pid in fh.read().split()


# The highest oom_score_adj: the kernel's OOM killer then picks this process before any other it may kill.
OOM_SCORE_ADJ_FIRST = 1000


def prefer_for_oom_kill() -> str | None:
    """Make this process the OOM killer's first pick wherever memory runs short: in an ancestor cgroup or the whole
    machine, where it would otherwise pick the largest process, a host process bigger than the run (it kept the
    host's score, 0). Set while the capabilities are still there, the code cannot lower it again (only
    CAP_SYS_RESOURCE goes below the value a privileged process set). Needs the host's /proc: before the mount
    namespace hides it. Returns why it could not, or None."""
    try:
        with open("/proc/self/oom_score_adj", "w", encoding="utf-8") as fh:
            fh.write(str(OOM_SCORE_ADJ_FIRST))
    except OSError as exc:
        return f"cannot write /proc/self/oom_score_adj ({exc.strerror})"
    return None


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


# The capability bounding set is the host's, passed on by fork and exec, and what it lacks is the host's container
# configuration (a runtime's dropped capabilities: CAP_SYS_RESOURCE on the test machine, Docker's default set, a
# privileged container's full one): PR_CAPBSET_READ answered it cap by cap (with native code, no audit event), in
# every set where the child keeps no user namespace of its own. Emptied while CAP_SETPCAP is still there (before the
# uid drop), it reads the same everywhere. It never limits the child, which gains no capability anyway.
PR_CAPBSET_READ, PR_CAPBSET_DROP = 23, 24


def empty_bounding_set(libc: ctypes.CDLL) -> None:
    """Drop every capability from this thread's bounding set; where this process may not (no CAP_SETPCAP: a host that
    is not root and made no user namespace) the set stays the host's, as it was."""
    cap = 0
    while libc.prctl(*(ctypes.c_ulong(v) for v in (PR_CAPBSET_READ, cap, 0, 0, 0))) >= 0:  # EINVAL past the last
        libc.prctl(*(ctypes.c_ulong(v) for v in (PR_CAPBSET_DROP, cap, 0, 0, 0)))
        cap += 1


def drop_supplementary_groups() -> None:
    """Leave the host's supplementary groups, which fork and exec pass on: where the child keeps the host's uid (no
    per-run uid) `os.getgroups()` named them (no audit event: a host user's `docker`, `sudo`, `adm`), and they grant
    their access to every group-readable file. Where this process may not (no CAP_SETGID: a host that is not root
    and made no user namespace) it keeps them."""
    try:  # noqa: SIM105 (contextlib would be one more import in the child's start)
        os.setgroups([])
    except OSError:
        pass


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


# Per-process kernel resources the code never needs beyond these: queued real-time signals (each a record in kernel
# memory, counted per user: with the host's uid a full queue is the host's too), POSIX message queue bytes, locked
# memory, and raised or real-time scheduling priorities. The host's values were far higher (96362 signals).
SIGNALS_QUEUED = 64
# Where the child keeps the host's uid (no per-run uid), none: the kernel checks RLIMIT_SIGPENDING against the
# uid's pending signals, every process's that shares it, so how many a run could queue told it how many a
# concurrent run (and the host's processes) held (64 alone, 1 beside a run holding its queue: a channel between
# runs in the three degraded sets). With none, no run queues a record whatever others hold; signals still arrive
# (a standard signal beyond the limit loses only its sender's details, and the kernel's own always pass).
SIGNALS_QUEUED_SHARED_UID = 0
# The main thread's stack: the usual 8 MiB (Linux's and most distributions' default), not the host's soft limit,
# which the code would read back (`ulimit -s` of the host's shell or service: 9 MiB under the host-process test).
RUN_STACK_BYTES = 8 * 2**20


def rlimit_values(cpu_seconds: float, memory_bytes: int, file_size_bytes: int, max_processes: int,
                  own_uid: bool = True) -> dict[str, int]:
    """The soft and hard value of every rlimit, by `resource` name: none keeps the host's (a later `min` with the
    host's hard limit only lowers them). Without `own_uid` (the child shares its uid) no queued signal at all."""
    cpu = max(1, int(-(-cpu_seconds // 1)))  # math.ceil, without `math` to load (0.1 ms a call)
    return {
        "RLIMIT_CPU": cpu,  # SIGXCPU at the soft limit; the hard one (a second later) kills
        "RLIMIT_AS": memory_bytes, "RLIMIT_DATA": memory_bytes, "RLIMIT_STACK": memory_bytes,
        "RLIMIT_RSS": memory_bytes, "RLIMIT_FSIZE": file_size_bytes, "RLIMIT_NPROC": max_processes,
        "RLIMIT_NOFILE": 64, "RLIMIT_OFILE": 64, "RLIMIT_CORE": 0,
        "RLIMIT_SIGPENDING": SIGNALS_QUEUED if own_uid else SIGNALS_QUEUED_SHARED_UID,
        "RLIMIT_MSGQUEUE": 0, "RLIMIT_MEMLOCK": 0, "RLIMIT_NICE": 0, "RLIMIT_RTPRIO": 0,
        "RLIMIT_RTTIME": cpu * 1_000_000,
    }


# Settings the host chose that fork and exec pass on, set to fixed values here: the file-creation mask (os.umask
# answered the host's, 0o027 under the test host, and made the code's files' modes), the timer slack (prctl
# PR_GET_TIMERSLACK, with native code: how late the host lets its timers fire) and whether transparent huge pages are
# switched off for it (PR_GET_THP_DISABLE: a database host's or a service's setting), and its machine-check kill
# policy (PR_MCE_KILL_GET: 1, early, under a host that asked to be killed at the first memory error, where the machine
# default answers 2) and whether all its memory is offered to the kernel's same-page merging (PR_SET_MEMORY_MERGE,
# kept across exec: where ksmd runs, a run's pages merged with the host's and other processes', the timing of a
# write to a merged page telling which contents they hold). The host resets every signal's
# disposition at the spawn; the scheduling settings stay the host's (its choice of priority and CPUs is honoured)
# and seccomp keeps them unread.
RUN_UMASK = 0o022
DEFAULT_TIMER_SLACK_NS = 50_000  # the kernel's default for a process whose parent set none
PR_SET_TIMERSLACK, PR_SET_THP_DISABLE = 29, 41
PR_MCE_KILL, PR_MCE_KILL_CLEAR = 33, 0
PR_SET_MEMORY_MERGE = 67  # EINVAL before Linux 6.4, where there is nothing to clear
# glibc gives each thread that allocates an arena of its own, 64 MiB of address space reserved (beside its 8 MiB
# stack): under the run's RLIMIT_AS (256 MiB) the code's fifth or sixth concurrent thread found no room, its first
# allocation failed inside the interpreter's thread start (MemoryError in the audit hook, unreported) and the thread
# ended before `Thread.start()` heard from it: the call hung to its wall clock (`timeout`) where `max_threads` (8)
# promised room. One arena for every thread: a thread costs its stack.
M_ARENA_MAX = -8


def reset_inherited_settings(libc: ctypes.CDLL) -> None:
    """Give this process the sandbox's own file-creation mask, timer slack, huge-page setting, machine-check kill
    policy and same-page merging (the machine's defaults) instead of the host's. None can fail for values in range."""
    os.umask(RUN_UMASK)
    libc.mallopt(M_ARENA_MAX, 1)
    for option, value in ((PR_SET_TIMERSLACK, DEFAULT_TIMER_SLACK_NS), (PR_SET_THP_DISABLE, 0),
                          (PR_MCE_KILL, PR_MCE_KILL_CLEAR), (PR_SET_MEMORY_MERGE, 0)):
        libc.prctl(*(ctypes.c_ulong(v) for v in (option, value, 0, 0, 0)))


PR_SET_DUMPABLE = 4


def make_undumpable(libc: ctypes.CDLL) -> None:
    """Give this process no core dump at all: where core_pattern pipes crashes to a helper (apport,
    systemd-coredump), the kernel runs it as root in the host's namespaces on every crash and hands it the whole
    memory, RLIMIT_CORE notwithstanding. Set after the uid drop (a change of credentials resets it); seccomp keeps the
    code from setting it back. Clearing a flag cannot fail."""
    libc.prctl(*(ctypes.c_ulong(v) for v in (PR_SET_DUMPABLE, 0, 0, 0, 0)))


def apply_rlimits(cpu_seconds: float, memory_bytes: int, file_size_bytes: int, max_processes: int,
                  own_uid: bool = True) -> None:
    """Set every rlimit this Python knows (`rlimit_values`): CPU time (SIGXCPU, then SIGKILL one second later),
    memory, file size, processes, descriptors, cores, queued signals (none without `own_uid`), locked memory,
    priorities."""
    for name, value in rlimit_values(cpu_seconds, memory_bytes, file_size_bytes, max_processes, own_uid).items():
        which = getattr(resource, name, None)
        if which is None:  # another platform's name
            continue
        soft, hard = value, value + 1 if name == "RLIMIT_CPU" else value
        cur_hard = resource.getrlimit(which)[1]
        if name == "RLIMIT_STACK":  # C recursion depth depends on it: the usual size, never the host's own choice
            soft = min(soft, RUN_STACK_BYTES)
        if cur_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        resource.setrlimit(which, (soft, hard))
