"""Whether a git lock file is stale (its writer is gone) or belongs to a git command running now."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# A lock this old that no visible process holds is stale even with no interrupted publish to explain it: git holds
# its locks for milliseconds, or across an editor, whose git process stays visible to its own user.
STALE_AFTER_S = 600.0
_PROC = Path("/proc")
_MOUNTINFO = _PROC / "self" / "mountinfo"
# File systems that other machines (or the host of a VM, or Windows under WSL) may have mounted at once: a git command
# of theirs holds its lock files there unseen by this machine's /proc, and a lock on a folder (flock) taken here does
# not reach them (NFS takes no folder's flock to its server). A lock file there is never "old" and no one's.
NETWORK_FILE_SYSTEMS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "virtiofs", "ceph", "glusterfs", "lustre", "afs", "gpfs",
    "beegfs", "ocfs2", "gfs2", "davfs", "fuse.sshfs", "fuse.glusterfs", "fuse.ceph", "fuse.cephfs", "fuse.s3fs",
    "fuse.rclone", "fuse.gcsfuse", "fuse.juicefs", "fuse.davfs2", "fuse.lizardfs", "fuse.moosefs"})


@dataclass(frozen=True)
class GitLock:
    """A git lock file, its age, and the visible processes that may be using it."""

    path: Path
    age_s: float
    holders: tuple[str, ...]  # "pid N (command)"

    def stale(self, publish_interrupted: bool, shared: bool = False) -> bool:
        """Whether no one holds it: no visible process does, and a publish interrupted on this machine left it or it
        is old, unless it lies on a file system other machines use (`shared`), whose git commands are not seen."""
        return not self.holders and (publish_interrupted or (not shared and self.age_s >= STALE_AFTER_S))


def shared_file_system(path: Path) -> str | None:
    """The type of the network file system that holds `path` (`nfs4`, `cifs`, `9p`, ...), where other machines'
    git commands and publishes may be working unseen; None for a local one, or where the mount table is unreadable."""
    try:
        table = _MOUNTINFO.read_text(errors="replace").splitlines()
        where = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    best, kind = -1, None
    for line in table:
        fields, _, rest = line.partition(" - ")
        parts, after = fields.split(), rest.split()
        if len(parts) < 5 or not after:
            continue
        mount = Path(re.sub(r"\\([0-7]{3})", lambda found: chr(int(found[1], 8)), parts[4]))  # \040: a blank
        if (mount == where or mount in where.parents) and len(mount.parts) >= best:
            best, kind = len(mount.parts), after[0]  # the last of mounts on one point is the one seen
    return kind if kind in NETWORK_FILE_SYSTEMS else None


def lock_for_machines(fd: int, no_locks: Callable[[OSError], None], waiting: Callable[[], None]) -> None:
    """Take an exclusive POSIX record lock on the file open as `fd`, which a network file system's server keeps for
    every machine (NLM, NFSv4, SMB byte-range locks) and releases when its holder's machine is gone. `waiting()` is
    called before waiting for another holder; `no_locks(error)` where the mount has no locks (`nolock`: ENOLCK),
    which leaves the file unlocked."""
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EAGAIN):
            no_locks(exc)
            return
        waiting()
        fcntl.lockf(fd, fcntl.LOCK_EX)


def git_locks(git_dir: Path, work_tree: Path) -> list[GitLock]:
    """The lock files in `git_dir` (the git directory of `work_tree`), each with the processes holding it."""
    paths = [git_dir / name for name in ("index.lock", "HEAD.lock", "packed-refs.lock", "config.lock")]
    paths += sorted((git_dir / "refs").rglob("*.lock"))
    now = time.time()
    locks: list[GitLock] = []
    for path in paths:
        try:
            age = now - path.stat().st_mtime
        except FileNotFoundError:
            continue
        if path.is_file():
            locks.append(GitLock(path, age, ()))
    if not locks:
        return []
    holders = _holders({str(lock.path) for lock in locks}, git_dir, work_tree)
    found = []
    for lock in locks:
        seen = tuple(holders.get(str(lock.path), []) + holders.get("", []))
        if not seen and open_unseen(lock.path):
            seen = (UNSEEN_HOLDER,)
        found.append(GitLock(lock.path, lock.age_s, seen))
    return found


# Who holds a lock file open that no process of this machine's /proc does (`open_unseen`).
UNSEEN_HOLDER = "a process this machine's /proc does not show (another container, PID namespace or user)"


def open_unseen(path: Path) -> bool:
    """Whether a process holds `path` open for writing that may be one /proc does not show: a write lease cannot be
    taken on it (EAGAIN), which the kernel refuses while any other descriptor of the file is open, in any process of
    this kernel, whatever its PID namespace, and nor can a read lease, refused while one is open for writing. A git
    writing a lock file holds it open for writing (`index.lock` through `git add` and its filters, `config.lock`
    while it writes); a reader alone (a backup, an antivirus scanner) is not its writer. False where that cannot be
    told (a lease is refused for another reason: another user's file, a network file system, leases turned off)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        try:
            if _lease_taken(fd, fcntl.F_WRLCK):
                return False
        except OSError:
            return False
        # Another descriptor is open. A read lease is refused only while one is open for writing, as a git holds the
        # lock it writes: where it is taken, only readers hold the file (a backup or an antivirus scanner reading
        # every new file, an indexer), none of them the lock's writer.
        try:
            return not _lease_taken(fd, fcntl.F_RDLCK)
        except OSError:
            return True  # cannot tell the writers from the readers: held, as any open descriptor was
    finally:
        os.close(fd)


def _lease_taken(fd: int, kind: int) -> bool:
    """Whether a lease of `kind` could be taken on `fd` (then given back at once); False when refused while another
    descriptor is open (EAGAIN); OSError when refused for another reason (another user's file, leases off)."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, kind)
    except OSError as exc:
        if exc.errno == errno.EAGAIN:
            return False
        raise
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    return True


def _holders(paths: set[str], git_dir: Path, work_tree: Path) -> dict[str, list[str]]:
    """Path -> processes holding it open; "" -> git processes working in the repository of `git_dir`.

    Only processes this user may inspect are seen (others' /proc entries are unreadable): a git command keeps its
    lock's descriptor open while writing, and runs in the work tree (or names GIT_DIR) while waiting for an editor.
    """
    found: dict[str, list[str]] = {}
    for entry in _PROC.iterdir() if _PROC.is_dir() else []:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            # The program and its first word only: later arguments may carry credentials (a URL with a token).
            words = [os.path.basename(argv[0]).decode(errors="replace")] if argv and argv[0] else []
            command = " ".join(words + [part.decode(errors="replace") for part in argv[1:2] if part])[:80]
            who = f"pid {entry.name} ({command})"
            for fd in (entry / "fd").iterdir():
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target in paths and _open_for_writing(entry, fd.name):
                    found.setdefault(target, []).append(who)
            if os.path.basename(argv[0]).startswith(b"git") and _works_in(entry, work_tree, git_dir):
                found.setdefault("", []).append(who)
        except OSError:  # gone, or another user's
            continue
    return found


def _open_for_writing(entry: Path, fd: str) -> bool:
    """Whether descriptor `fd` of process `entry` is open for writing (its `fdinfo` flags; True where unreadable). A
    lock file's writer, a git, holds it open for writing; a process that only reads it (a backup or an antivirus
    scanner reading each new file, a file indexer) is not its writer, and the lock is not held for it: taken for a
    git at work, such a reader stopped every publish until it closed the file."""
    try:
        flags = next(line for line in (entry / "fdinfo" / fd).read_text().splitlines() if line.startswith("flags:"))
        return int(flags.split()[1], 8) & os.O_ACCMODE != os.O_RDONLY
    except (OSError, StopIteration, IndexError, ValueError):
        return True


def _works_in(entry: Path, work_tree: Path, git_dir: Path) -> bool:
    cwd = Path(os.readlink(entry / "cwd"))
    if cwd == work_tree or work_tree in cwd.parents:
        return True
    env = dict(item.split(b"=", 1) for item in (entry / "environ").read_bytes().split(b"\0") if b"=" in item)
    named = env.get(b"GIT_DIR")
    return named is not None and (cwd / os.fsdecode(named)).resolve() == git_dir
