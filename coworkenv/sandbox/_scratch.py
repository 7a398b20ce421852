"""The run directory as the host sees it: watching the scratch folder while the code runs, removing the run
directory once the child is gone, whatever the untrusted code left in it.

Without a tmpfs of its own (no mount namespace: an unprivileged host) nothing in the kernel caps the scratch
folder as a whole: RLIMIT_FSIZE caps each file, not their number, so a run could put gigabytes on the host's disk
before its CPU time ran out. `scratch_exceeds` lets the host stop such a run, judging the folder by the tmpfs's
own caps (bytes, entries).

The code also controls what is left behind: a tree deeper than Python's recursion limit (shutil.rmtree recurses
once per level and would raise RecursionError out of `run_sandboxed`, leaving the tree behind), paths longer
than PATH_MAX, folders without permissions. `remove_tree` walks the tree with directory descriptors and a stack
of names, so depth costs neither recursion nor path length; it never raises, and logs what it could not remove.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import time

_log = logging.getLogger("coworkenv.sandbox")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
SCRATCH_ENTRIES = 4096  # the tmpfs scratch's nr_inodes
_PENDING_FOLDERS = 256  # folders found but not yet scanned: a bound on the descriptors the walk holds


def scratch_exceeds(path: str, max_bytes: int, max_entries: int = SCRATCH_ENTRIES, pid: int | None = None,
                    file_bytes: int = 0) -> bool:
    """Whether the folder `path` holds more than `max_bytes` (allocated) or more than `max_entries` entries, more
    sub-folders side by side than the walk will hold open, or a folder this process may not look into; stops counting
    as soon as one is passed. With
    `pid`, files that process holds after removing them count too (open, or mapped only): no folder lists them any
    more, yet they stay on the disk until it lets them go; `file_bytes` (the run's file size limit) is what a removed
    file of `path` that it maps counts where the host may not look at the file itself."""
    held = 0 if pid is None else removed_but_held_bytes(pid, path, file_bytes)
    if held is None or held > max_bytes:
        return True
    total = held
    try:
        pending = [_open_unseen(path)]
    except OSError:
        return False
    entries = 0
    try:
        while pending:
            folder = pending.pop()
            try:
                with os.scandir(folder) as found:
                    for entry in found:
                        entries += 1
                        try:
                            total += entry.stat(follow_symlinks=False).st_blocks * 512
                            if entry.is_dir(follow_symlinks=False):
                                pending.append(_open_unseen(entry.name, folder))
                        except (FileNotFoundError, NotADirectoryError):
                            # Removed or replaced since the listing: the rest of the folder still counts (a decoy
                            # the code removes and makes again over and over skipped it all before).
                            pass
                        if entries > max_entries or total > max_bytes or len(pending) >= _PENDING_FOLDERS:
                            return True
            except PermissionError:
                # A folder the host may not list or search (mode 0o300: the code, sharing the host's uid, writes
                # there; a host without DAC override cannot look in): what it holds is unknown, so it is too much.
                # The walk skipped it, and 1 GiB went into a 16 MiB scratch unseen.
                return True
            except OSError:  # the running code removed it meanwhile: count what is there
                continue
            finally:
                os.close(folder)
    finally:
        for folder in pending:
            os.close(folder)
    return False


def _open_unseen(name: str, parent: int | None = None) -> int:
    """The folder `name` opened for a look the running code cannot see: listing a folder moves its access time
    (`relatime`: whenever that is not later than its last change), which the code reads back with `os.stat` (no audit
    event), so it saw each of the watch's looks within one loop and could write its bursts between two of them and
    remove them before the next (8 looks of 8 in 0.8 s, in every set without a tmpfs scratch). `O_NOATIME` keeps the
    access time; the kernel allows it to the folder's owner (the host, where the code keeps its uid) or to a host with
    `CAP_FOWNER` (root, where a per-run uid owns the folders); a host with neither lists as before."""
    try:
        return os.open(name, _DIR_FLAGS | os.O_NOATIME, dir_fd=parent)
    except PermissionError as exc:
        if exc.errno != errno.EPERM:  # EACCES: a folder the host may not look into at all
            raise
        return os.open(name, _DIR_FLAGS, dir_fd=parent)


def removed_but_held_bytes(pid: int, under: str | None = None, file_bytes: int = 0) -> int | None:
    """Bytes allocated to the files and folders that process `pid` holds but that no folder lists any more (unlinked,
    removed, `O_TMPFILE`, memfds), each counted once however many descriptors (or `mmap` copies of one) it has: open
    in any of its threads (a thread cloned without `CLONE_FILES` has a descriptor table of its own, which `/proc/<pid>/fd` does not show),
    and, for removed files under the folder `under`, held by a memory mapping alone (its descriptor closed: 200 MiB
    stayed on the disk under a 16 MiB scratch, unseen). A mapped file the host may not look at through
    `/proc/<pid>/map_files` (that needs `CAP_SYS_ADMIN`) counts `file_bytes`, the most a file of the run can hold.
    None where the process has more mappings than the host reads (`_MAX_MAPS_BYTES` of `/proc/<pid>/maps`): what they
    hold is unknown, so it is too much."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for fds in _descriptor_folders(pid):
        try:
            names = os.listdir(fds)
        except OSError:  # gone, or not ours to look at
            continue
        for name in names:
            try:
                st = os.stat(os.path.join(fds, name))  # the magic link leads to the open file itself, never opens it
            except OSError:
                continue
            # A removed folder too: it keeps the blocks its entries took once (no file system here shrinks one).
            kept = stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)
            if kept and st.st_nlink == 0 and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    if under is None:
        return total
    mapped = _removed_but_mapped_bytes(pid, under, file_bytes, seen)
    return None if mapped is None else total + mapped


def _descriptor_folders(pid: int) -> list[str]:
    """The descriptor folders of every thread of process `pid` (its own where its threads cannot be listed)."""
    try:
        return [f"/proc/{pid}/task/{tid}/fd" for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return [f"/proc/{pid}/fd"]


_DELETED = " (deleted)"
# How much of a process's /proc/<pid>/maps the host reads each look: a run's interpreter has some 180 lines (26 KB
# here); the kernel writes 5.6 MB for the 60000 mappings a run may make, 84 ms of the host's CPU each read.
_MAX_MAPS_BYTES = 256 * 2**10


def _removed_but_mapped_bytes(pid: int, under: str, file_bytes: int, seen: set[tuple[int, int]]) -> int | None:
    """Bytes of the removed files under `under` that process `pid` maps and that `seen` (files found held open,
    updated here) does not hold yet; None where its maps are longer than the host reads."""
    try:
        with open(f"/proc/{pid}/maps", "rb") as fh:
            data = fh.read(_MAX_MAPS_BYTES + 1)
    except OSError:  # gone, or not ours to look at
        return 0
    if len(data) > _MAX_MAPS_BYTES:
        return None
    lines = data.decode("utf-8", "surrogateescape").splitlines()
    prefix = under.rstrip("/") + "/"
    inodes = {ino for _, ino in seen}  # a mapped file's (device, inode) may be its backing file's (overlayfs)
    total = 0
    for line in lines:
        fields = line.split(maxsplit=5)
        if len(fields) < 6 or not fields[5].startswith(prefix) or not fields[5].endswith(_DELETED):
            continue
        major, _, minor = fields[3].partition(":")
        try:
            key = (os.makedev(int(major, 16), int(minor, 16)), int(fields[4]))
        except ValueError:
            continue
        if key in seen or key[1] in inodes:
            continue
        seen.add(key)
        inodes.add(key[1])
        try:
            st = os.stat(f"/proc/{pid}/map_files/{fields[0]}")
        except OSError:  # gone meanwhile, or the host may not look (no CAP_SYS_ADMIN): the most it can hold
            total += file_bytes
            continue
        total += st.st_blocks * 512 if st.st_nlink == 0 else 0
    return total


def remove_tree(path: str, deadline: float | None = None) -> bool:
    """Remove the directory `path` and everything below it, however deep; never raises. With `deadline` (a
    `time.monotonic()` reading) it stops once that has passed, between two folders, and returns False: what is
    left is a smaller tree that another call removes. True otherwise (removed, or what failed logged)."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        base = os.open(parent, _DIR_FLAGS)
    except OSError as exc:
        _log.warning("cannot remove sandbox run directory %s: %s", path, exc)
        return True
    try:
        return _remove_below(base, name, deadline)
    except OSError as exc:
        _log.warning("cannot remove sandbox run directory %s: %s", path, exc)
        return True
    finally:
        os.close(base)


def _remove_below(base: int, name: str, deadline: float | None = None) -> bool:
    """Remove `name` in the directory `base`, descending one folder at a time (one descriptor open at a time); False
    where `deadline` passed first. Each folder is listed once: its files are unlinked then, and the names of its
    sub-folders kept for the way down. (It was listed again after each sub-folder it held was removed: a folder of N
    sub-folders cost N * N / 2 entries read, and 4000 empty ones, made in the scratch of a run without a tmpfs of its
    own, took 2.4 s of the host's CPU after the child had ended; 8000 about 10 s.)"""
    current = _open_dir(base, name)
    try:
        # The folders from `name` down to `current`, each with its sub-folders still to remove.
        path: list[tuple[str, list[str]]] = [(name, _listed(current))]
        while True:
            if deadline is not None and time.monotonic() > deadline:
                return False
            folder, subs = path[-1]
            if subs:
                sub = subs.pop()
                deeper = _open_dir(current, sub)
                os.close(current)
                current = deeper
                path.append((sub, _listed(current)))
                continue
            path.pop()
            if not path:
                os.rmdir(name, dir_fd=base)
                return True
            up = os.open("..", _DIR_FLAGS, dir_fd=current)  # the child is gone: nothing can move the tree meanwhile
            os.close(current)
            current = up
            os.rmdir(folder, dir_fd=current)
    finally:
        os.close(current)


def _listed(folder: int) -> list[str]:
    """`_unlink_files` of `folder`, made writable first where the code made it unwritable (possible only when it
    shared our uid)."""
    try:
        return _unlink_files(folder)
    except PermissionError:
        os.chmod(folder, 0o700)
        return _unlink_files(folder)


def _open_dir(parent: int, name: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except PermissionError:
        with contextlib.suppress(OSError):
            os.chmod(name, 0o700, dir_fd=parent)
        return os.open(name, _DIR_FLAGS, dir_fd=parent)


def _unlink_files(folder: int) -> list[str]:
    """Unlink every non-directory in `folder`; returns the names of the sub-folders left."""
    subs = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                subs.append(entry.name)
            else:
                os.unlink(entry.name, dir_fd=folder)
    return subs
