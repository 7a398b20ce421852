"""Durable atomic file writes: a reader sees the old file or the whole new one, never a partial file.

A write that fails (a full disk, a file size limit, a read-only folder, a file where a folder should be) raises
`WriteError`, which names the file, the reason and what to do; the temp file is removed and any previous version of
the file is left as it was. Temp files are hidden (`.tmp-...`), so readers of a folder pass over them; those of a
writer that died are removed by the next write into the same folder.

A written file has the mode a plain `open()` gives it (0666 less the umask, or what the folder's default ACL gives),
or the mode of the file it replaces (`output_mode`); a secret's is 0600 (`private`). The temp file's own mode, `tempfile.mkstemp`'s 0600, had made every
output readable by its writer alone.

A set of files (`files_together`) is put in place by renames after a journal naming them (`.set-...json`, in every
folder of the set) is written: a writer killed during those renames leaves the journal, and the next reader or
writer of any of its folders completes the renames (`finish_interrupted_sets`) before it reads or writes, as a
database replays its journal on the next open. Readers see the earlier set or the whole new one, never a mix.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import itertools
import json
import os
import shutil
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO

from coworkenv.open_files import open_files_limit

TEMP_PREFIX = ".tmp-"
SET_PREFIX = ".set-"  # the journal of a set of files being put in place: `.set-<host tag>-<pid>-<n>.json`
SET_WAIT_S = 30.0  # how long a reader waits for another process to end the renames of its set
UNCHANGED = "any earlier version of the file is unchanged"
SET_UNCHANGED = "no file of this run was put in place: every file of the earlier run is as it was"

_NO_SPACE = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
_NO_PERMISSION = {errno.EACCES, errno.EPERM, errno.EROFS}
_WRONG_KIND = {errno.ENOTDIR, errno.EEXIST, errno.EISDIR}
_NO_SUCH_PATH = {errno.ENOENT, errno.ELOOP}
_TOO_MANY_OPEN = {errno.EMFILE, errno.ENFILE}
_OTHER_FILE_SYSTEM = {errno.EXDEV, errno.EBUSY}
_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS}  # NFS without its lock service, some FUSE mounts


class WriteError(OSError):
    """A file that could not be written: the message names it, the reason and what to do."""

    def __init__(self, final: Path, cause: OSError, outcome: str = UNCHANGED) -> None:
        super().__init__(cause.errno, os_reason(cause))
        self.final = final
        # The path the system names, when it is not the file itself or our temp file (e.g. a looping link above).
        culprit = Path(str(cause.filename)) if cause.filename else None
        at = f" at {culprit}" if culprit and culprit != final and not culprit.name.startswith(TEMP_PREFIX) else ""
        self.message = f"cannot write {final}: {os_reason(cause)}{at}; {path_advice(final, cause)}; {outcome}"

    def __str__(self) -> str:
        return self.message


class NotFlushedError(WriteError):
    """A file put in place whose folder could not be flushed to disk afterwards (`fsync` of the folder failed: EIO
    from a failing disk, a network file system gone): the new version is what readers see now, but a power loss may
    still undo it. It had said "any earlier version of the file is unchanged", of a file already replaced."""

    def __init__(self, final: Path, cause: OSError, folder: Path | None = None) -> None:
        super().__init__(final, cause)
        placed = f"{final} in place" if folder is None else f"this run's files in place in {folder}"
        held = f"{final.name} holds" if folder is None else "the folder holds"
        self.message = (f"cannot flush {folder or final.parent} to disk after putting {placed}: {os_reason(cause)}; "
                        f"{path_advice(final, cause)}; {held} this run's new version, which readers see now but a "
                        "power loss could still undo")


class NotRegularFileError(OSError):
    """A path read as a file is a named pipe, a device or a socket (`kind` says which, in words), as the file it
    opened is: read, it would wait for a writer for ever or never end."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a file", str(path))
        self.kind = kind


class FileTooBigError(OSError):
    """A file read with a bound holds more than `limit` bytes (`size`: at least that many, as it was read)."""

    def __init__(self, path: Path, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"{size} bytes, over the {limit} read", str(path))
        self.size, self.limit = size, limit


def special_kind(mode: int) -> str | None:
    """What a file of `mode` (st_mode) is when it is no regular file or folder, in words; None for those."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"


def read_regular_file(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file at `path` (a link followed), checked on the file opened, not on the path.

    A check of the path before the read (`stat`, `is_file`) is of whatever was there then: a file replaced between the
    two (a writer's rename, a link re-pointed, another user's swap in a shared folder) by a named pipe made the read
    wait for ever, by a link to a device or a file grown since made it never end. So the path is opened without
    waiting (O_NONBLOCK: the open of a named pipe does not wait for a writer) and without taking a terminal, and
    what was opened is checked (`fstat`): NotRegularFileError for a pipe, a device or a socket, IsADirectoryError for a
    folder, FileTooBigError where it holds more than `limit` bytes (as it is read too: a file that grows on is cut
    there); other OSErrors as the open or read raise them."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        if exc.errno != errno.ENXIO:  # what opening a socket (or a device with nothing behind it) says
            raise
        try:
            kind = special_kind(os.stat(path).st_mode)
        except OSError:
            kind = None
        raise NotRegularFileError(path, kind or "a device") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        kind = special_kind(info.st_mode)
        if kind is not None:
            raise NotRegularFileError(path, kind)
        if limit is not None and info.st_size > limit:
            raise FileTooBigError(path, info.st_size, limit)
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        held = 0
        while True:
            chunk = os.read(fd, max(1 << 16, min(info.st_size - held + 1, 1 << 26)))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            held += len(chunk)
            if limit is not None and held > limit:
                raise FileTooBigError(path, held, limit)
    finally:
        os.close(fd)


def os_reason(error: OSError) -> str:
    """The operating system's reason for `error`, in words (without the path, which callers name themselves)."""
    if error.errno:
        return os.strerror(error.errno)
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def path_advice(final: Path | None, error: OSError) -> str:
    """What to do about `error`, raised while reading or writing `final` (None: a file the error does not name)."""
    where = f" to {final}" if final is not None else ""
    if error.errno == errno.ENOSPC:  # also what a file system out of inodes says, with gigabytes free
        return "free disk space (or inodes, if `df -i` shows none left: delete small files) and run again"
    if error.errno in _NO_SPACE:
        return "free disk space (or raise the file size limit or quota) and run again"
    if error.errno == errno.EIO:
        return "the disk reported an input/output error (a failing disk, or a network or USB disk that went away): " \
               "check it (`dmesg`, `smartctl -a`), then run again"
    if error.errno in _TOO_MANY_OPEN:
        return f"raise the limit on open files (`ulimit -n`, {open_files_limit()} here) and run again"
    if error.errno in _NO_LOCKS:
        return "its file system has no file locks, which keep two writers of one folder apart; use a folder on a " \
               "local disk (or turn locking on: NFS needs its lock service, rpc.statd)"
    if error.errno in _OTHER_FILE_SYSTEM:
        # A rename cannot cross file systems: the path (or a folder on its way) is a mount point, a container
        # volume, or a folder of an image layer that overlayfs cannot rename.
        mount = f" ({final} or a folder above it is a mount point or a container volume)" if final else ""
        return f"the file system refused to rename{where}{mount}; write to a folder inside the mount instead " \
               "(e.g. a subfolder of it), or to a folder on one file system"
    if error.errno in _NO_PERMISSION:
        folder = final.parent if final is not None else "the output folder"
        if error.errno == errno.EROFS:
            return f"{folder} is on a read-only file system (a read-only mount binds root too); write to another folder"
        if error.errno == errno.EPERM:
            # Permission bits answer EACCES: EPERM to a write is an attribute (or a sticky folder), binding root too.
            what = f"{final} or {folder}" if final is not None else "the file or its folder"
            return (f"{what} may be immutable or append-only, which binds root too (`lsattr -d PATH` shows an i or an "
                    "a; `chattr -i PATH` or `chattr -a PATH` removes it), or belong to another user in a sticky "
                    "folder such as /tmp; change that, or write to another folder")
        return f"make {folder} writable, or write to another folder"
    if error.errno in _WRONG_KIND:
        return f"a file stands where a folder is expected on the way{where} (or a folder where the file goes); " \
               "move it away or choose another path"
    if error.errno == errno.ENAMETOOLONG:
        return "choose a shorter path (a name holds at most 255 bytes, a path 4096)"
    if error.errno in _NO_SUCH_PATH:
        return f"a symbolic link on the way{where} loops or points nowhere (or a folder is missing); " \
               "fix or remove the link, or choose another path"
    return "check the disk and the folder, then run again"


def make_folder(folder: Path) -> None:
    """Create `folder` and its parents; a symbolic link on the way that loops or dangles is named, not a 'file'."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        for link in (folder, *folder.parents):
            if link.is_symlink():
                try:
                    os.stat(link)
                except OSError as broken:
                    raise OSError(broken.errno, os.strerror(broken.errno or errno.ENOENT), str(link)) from None
        raise


@contextmanager
def naming_failures(final: Path) -> Iterator[None]:
    """Turn an OSError of the operating system raised in the block into a `WriteError` naming `final` (a
    `WriteError` already naming a file, or an error of ours without an errno, passes as it is)."""
    try:
        yield
    except WriteError:
        raise
    except OSError as error:
        if error.errno is None:
            raise
        raise WriteError(final, error) from None


def fsync_dir(directory: Path) -> None:
    """Flush a directory entry to disk so a completed rename survives a power loss."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit_file(temp: Path, final: Path) -> None:
    """Move a fully written, fsynced temp file to its final name in the same directory (inside `files_together`,
    once every file of the set is written)."""
    together = _together.get()
    if together is not None:
        together.moves.append((temp, final))
        return
    with naming_failures(final):
        os.replace(temp, final)
    try:
        fsync_dir(final.parent)
    except OSError as error:
        raise NotFlushedError(final, error) from None


def remove_file(path: Path) -> None:
    """Remove a file an output no longer holds (inside `files_together`, once every file of the set is in place)."""
    together = _together.get()
    if together is not None:
        together.removals.append(path)
    else:
        path.unlink(missing_ok=True)


def _place(temp: Path, final: Path) -> None:
    with naming_failures(final):
        os.replace(temp, final)


class _FileSet:
    def __init__(self) -> None:
        self.moves: list[tuple[Path, Path]] = []
        self.removals: list[Path] = []


_together: ContextVar[_FileSet | None] = ContextVar("files_together", default=None)


@contextmanager
def files_together() -> Iterator[None]:
    """Write the files of one output (curate's shards and report, validate's tables and funnel) as a set: every
    `commit_file` (so every `atomic_write`) and `remove_file` in the block waits until the block has written all
    of them, then they are put in place by renames alone, which need no free space. A write that fails in the block
    (a full disk, a quota, a read-only folder) or an error of the command then puts none in place: the temp files
    are removed and every file of the earlier run is left as it was, so a failed rerun loses no earlier output and
    leaves no mix of two runs (the WriteError says so). Before the renames a journal of the set is written in each of
    its folders; a kill during them leaves it, and the next reader or writer of those folders completes the set
    (`finish_interrupted_sets`). Blocks nest into the outermost."""
    if _together.get() is not None:
        yield
        return
    files = _FileSet()
    token = _together.set(files)
    try:
        yield
    except BaseException as exc:
        for temp, _ in files.moves:
            temp.unlink(missing_ok=True)
        if isinstance(exc, WriteError) and exc.message.endswith(UNCHANGED):
            exc.message = exc.message.removesuffix(UNCHANGED) + SET_UNCHANGED
        raise
    finally:
        _together.reset(token)
    folders = sorted({final.parent for _, final in files.moves} | {path.parent for path in files.removals})
    try:
        for folder in folders:  # an earlier set whose writer was killed part way goes in place first, then this one
            finish_interrupted_sets(folder)
        journals = _write_journals(folders, files) if len(files.moves) + len(files.removals) > 1 else []
    except BaseException:
        for temp, _ in files.moves:
            temp.unlink(missing_ok=True)
        raise
    # From here on the set is committed: a kill leaves the journals, and whoever next reads or writes one of these
    # folders completes the renames; a stop signal (SIGTERM, Ctrl-C) raised meanwhile ends them first. A rename that
    # fails (not a kill) still removes what is left, as before: the set cannot be completed.
    for number, (temp, final) in enumerate(files.moves):
        try:
            _place(temp, final)
        except WriteError as error:
            for left, _ in files.moves[number:]:
                left.unlink(missing_ok=True)
            _drop_journals(journals)
            if number:  # it had said "unchanged" of a folder whose first files were this run's already
                placed = ", ".join(final.name for _, final in files.moves[:number][:3])
                error.message = (error.message.removesuffix(UNCHANGED) + f"{number} of this run's "
                                 f"{len(files.moves)} files were put in place before it ({placed}), so the folder "
                                 "holds files of two runs: run the command again to write the whole set")
            raise
        except BaseException:
            _complete(files.moves[number:], files.removals)
            _drop_journals(journals)
            raise
    for path in files.removals:  # a failure leaves the journals: the next reader or writer ends the removals
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            raise WriteError(path, error, f"this run's files are in place; {path.name}, of the earlier run, is "
                                          "removed by the next command that reads or writes the folder") from None
    for folder in folders:
        try:
            fsync_dir(folder)
        except FileNotFoundError:
            continue
        except OSError as error:  # every file of the set is in place: it is not "as it was", and needs no journal
            _drop_journals(journals)
            raise NotFlushedError(folder, error, folder) from None
    _drop_journals(journals)


def _write_journals(folders: list[Path], files: _FileSet) -> list[Path]:
    """A journal of the set (its renames and removals, by paths relative to each folder) in each of `folders`,
    written durably; the paths written."""
    name = f"{SET_PREFIX}{_host_tag()}-{os.getpid()}-{next(_journal_numbers)}.json"
    journals: list[Path] = []
    try:
        _write_each_journal(folders, files, name, journals)
    except BaseException:
        # A journal left by a set that was never committed would have the next reader do its removals (files of the
        # earlier run, gone without their replacements): none may stay.
        for journal in journals:
            with contextlib.suppress(OSError):
                journal.unlink(missing_ok=True)
        raise
    return journals


def _write_each_journal(folders: list[Path], files: _FileSet, name: str, journals: list[Path]) -> None:
    for folder in folders:
        payload = {"moves": [[os.path.relpath(temp, folder), os.path.relpath(final, folder)]
                             for temp, final in files.moves],
                   "removals": [os.path.relpath(path, folder) for path in files.removals],
                   "folders": [os.path.relpath(other, folder) for other in folders]}
        journal = folder / name
        with naming_failures(journal):
            fd, temp = tempfile.mkstemp(prefix=temp_prefix(), suffix=".json", dir=folder)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(json.dumps(payload).encode())
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, journal)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
            journals.append(journal)
            fsync_dir(folder)


def _drop_journals(journals: list[Path]) -> None:
    for journal in journals:  # one that cannot be removed is ended by the next reader (every rename done: no-op)
        with contextlib.suppress(OSError):
            journal.unlink(missing_ok=True)
    for folder in {journal.parent for journal in journals}:
        with contextlib.suppress(OSError):
            fsync_dir(folder)


_journal_numbers = itertools.count()


def finish_interrupted_sets(folder: Path) -> list[Path]:
    """Complete the sets of files whose writer (a process of this host) died while putting them in place: each
    journal (`.set-...json`) in `folder` names the set's renames and removals in every folder of the set; those not
    done yet are done, then the journals are removed. Return the files put in place.

    Readers of an output folder call this first (through `Stage.read`, `sft_files`, `spec_files`, the eval report's
    reader, ...), as does every write into the folder: a kill during the renames of a set otherwise left a mix of two
    runs' files (validate's tables and funnel, eval's report and episodes, curate's shards and report). Journals of
    other hosts are left alone; a live writer's (another process of this host placing its set now, which takes it
    milliseconds) is waited for, up to SET_WAIT_S: a reader listing or reading the folder meanwhile would take some of
    its files and some of the earlier run's. ValueError naming the journal when the renames cannot be done (no write
    access), or when the writer has not ended them in time (stopped?)."""
    placed: list[Path] = []
    host = _host_tag()
    deadline = time.monotonic() + SET_WAIT_S
    while True:
        try:
            names = sorted(entry.name for entry in os.scandir(folder) if entry.name.startswith(SET_PREFIX))
        except OSError:
            return placed
        placing = []
        for name in names:
            parts = name[len(SET_PREFIX):].split("-", 2)
            if len(parts) != 3 or parts[0] != host or not parts[1].isdigit() or int(parts[1]) == os.getpid():
                continue
            if _alive(int(parts[1])):
                placing.append((name, int(parts[1])))
            else:
                placed += _finish(Path(folder) / name)
        if not placing:
            return placed
        if time.monotonic() > deadline:
            name, pid = placing[0]
            raise ValueError(f"{Path(folder) / name}: process {pid} is putting a set of files in place in {folder} "
                             f"and has not ended in {SET_WAIT_S:.0f} s (stopped? `kill -CONT {pid}`); reading the folder "
                             "now would take some of its files beside the earlier run's: try again once it has ended")
        time.sleep(0.01)


def _complete(moves: list[tuple[Path, Path]], removals: list[Path]) -> list[Path]:
    """The renames of a committed set not done yet (a temp file still there), then its removals; the files placed."""
    placed = []
    for temp, final in moves:
        try:
            os.replace(temp, final)
        except FileNotFoundError:  # placed already: by its writer, or by another reader completing the set now
            continue
        placed.append(final)
    for path in removals:
        path.unlink(missing_ok=True)
    return placed


def _not_written_here(journal: Path, moves: list[tuple[Path, Path]], removals: list[Path],
                      folders: list[Path]) -> str | None:
    """Why the journal's set is not one `files_together` wrote, or None. A journal is data in a folder that may have
    come from elsewhere: its renames and removals are done only where they are of the kind the library writes (a
    hidden temp file renamed in its own folder) and only in folders that each hold the same journal, so a crafted
    one cannot move or remove a file outside the folders it was written in (`../`, a link out)."""
    listed = {os.path.normpath(other) for other in folders}
    if os.path.normpath(journal.parent) not in listed:
        return "it does not name its own folder"
    for temp, final in moves:
        if temp.parent != final.parent or not temp.name.startswith(TEMP_PREFIX) or final.name.startswith("."):
            return f"a rename of {temp.name} to {final.name} is not of a temp file to its final name in one folder"
    for path in [final for _, final in moves] + removals:
        if os.path.normpath(path.parent) not in listed or os.path.basename(path) in ("", ".", ".."):
            return f"{path.name} is outside the folders the set was written in"
    for other in folders:
        if other.is_symlink() or any(part == ".." for part in Path(os.path.relpath(other, journal.parent)).parts[1:]):
            return f"{other} is a link or lies past another folder of the set"
    return None


def settle_before_reading(path: Path) -> None:
    """`finish_interrupted_sets` where a reader is about to read: the folder of a file, or a folder and every folder
    below it (an output's sets may span subfolders: eval's report and its `runs/`)."""
    path = Path(path)
    if path.is_dir():
        for folder, _, _ in os.walk(path):
            finish_interrupted_sets(Path(folder))
    else:
        finish_interrupted_sets(path.parent)


def _finish(journal: Path) -> list[Path]:
    folder = journal.parent
    try:
        payload = json.loads(journal.read_bytes())
        moves = [(folder / temp, folder / final) for temp, final in payload["moves"]]
        removals = [folder / path for path in payload["removals"]]
        folders = [folder / other for other in payload["folders"]]
    except FileNotFoundError:  # completed meanwhile by another reader
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{journal}: the journal of a set of files whose writer was killed while putting them in "
                         f"place cannot be read ({exc}); the folder may hold a mix of two runs' files: run the "
                         "command that wrote it again, then delete the journal") from None
    foreign = _not_written_here(journal, moves, removals, folders)
    if foreign is not None:
        raise ValueError(f"{journal}: not a journal of a set this library put in place ({foreign}); nothing was moved "
                         "or removed. If the folder came from elsewhere (a download, an archive), delete the journal")
    if any(not (other / journal.name).is_file() for other in folders):
        # The journals are removed only once every rename and removal is done (by the writer, or by another reader
        # completing the set just now): then no temp file is left, and nothing is left to do. A temp file beside a
        # missing journal is no state this library leaves: the set is not its own.
        if any(temp.exists() for temp, _ in moves):
            raise ValueError(f"{journal}: not a journal of a set this library put in place (a folder it names holds "
                             "no copy of it); nothing was moved or removed. If the folder came from elsewhere (a "
                             "download, an archive), delete the journal")
        journal.unlink(missing_ok=True)
        return []
    try:
        placed = _complete(moves, removals)
        for other in folders:
            with contextlib.suppress(FileNotFoundError):
                fsync_dir(other)
            (other / journal.name).unlink(missing_ok=True)
    except OSError as exc:
        finals = ", ".join(final.name for _, final in moves[:4])
        raise ValueError(f"{journal}: a write of {finals} was killed part way through putting them in place, and "
                         f"completing it failed ({os_reason(exc)}): the folder holds a mix of two runs' files until "
                         "it is completed; read it once with write access to the folder, or run the command that "
                         "wrote it again") from None
    return placed


def temp_prefix() -> str:
    """The name prefix of this process's temp files: `.tmp-<host tag>-<pid>-`, so a later writer can tell the files
    of a writer that died (kill -9, power loss) from those of one still writing."""
    return f"{TEMP_PREFIX}{_host_tag()}-{os.getpid()}-"


def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def sweep_dead_temps(directory: Path) -> list[Path]:
    """Remove the temp files in `directory` whose writer, a process of this host, is gone; return them.

    Files of other hosts (a shared disk) and of live processes are left alone; names of other forms too.
    """
    removed: list[Path] = []
    host = _host_tag()
    with contextlib.suppress(ValueError):  # a dead writer's set: its temps are put in place, not removed
        finish_interrupted_sets(directory)
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        parts = entry.name[len(TEMP_PREFIX):].split("-", 2) if entry.name.startswith(TEMP_PREFIX) else []
        if len(parts) == 3 and parts[0] == host and parts[1].isdigit() and not _alive(int(parts[1])):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def umask() -> int:
    """This process's umask, read without changing it (Linux: /proc/self/status), else set and set back at once."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def output_mode(final: Path | None = None) -> int | None:
    """The permission bits a file written to `final` takes: those of the file it replaces (a mode set by hand, `chmod
    640` or `g+w`, is kept), else None: a new file is made as a plain `open()` makes one (`new_temp_file`), 0666 less
    the umask (0664 under `umask 002`, 0644 under 022), or, in a folder with a default ACL, what that ACL gives, the
    umask then unused. `tempfile.mkstemp` makes its file 0600 whatever the umask: every output was its writer's alone,
    and a teammate, the group or a server under another account met "Permission denied"."""
    if final is not None:
        try:
            info = os.stat(final)
        except (OSError, ValueError):
            info = None
        if info is not None and stat.S_ISREG(info.st_mode):
            return stat.S_IMODE(info.st_mode)
    return None


# How `tempfile.mkstemp` opens its file (no link followed, not inherited by children), bar its mode.
_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_temp(name: str, mode: int) -> int:
    """Make the temp file `name`, asking for `mode` (its descriptor)."""
    return os.open(name, _TEMP_FLAGS, mode)


def new_temp_file(final_dir: Path, suffix: str = "", mode: int | None = None) -> tuple[int, str]:
    """A new temp file in `final_dir`, as `tempfile.mkstemp` makes one, of `mode`, the mode it keeps once renamed into
    place; None: made as a plain `open()` makes a file (0666 asked for: the kernel takes off the umask, or applies the
    folder's default ACL). mkstemp's 0600, then `chmod` to 0666 less the umask, left a folder's default ACL (`setfacl
    -d -m g:team:rX`, a team's shared store) unused: its group entries masked off, the file its writer's alone under
    a private umask (077) where `open()` gives the team read, and another mask than the ACL's under any other."""
    prefix = temp_prefix()
    for _ in range(tempfile.TMP_MAX):
        name = os.path.join(final_dir, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            fd = _open_temp(name, 0o666 if mode is None else 0o600)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, f"no temp file name left in {final_dir}")
    try:
        if mode is not None:
            os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        Path(name).unlink(missing_ok=True)
        raise
    return fd, name


@contextmanager
def temp_file_beside(final_dir: Path, suffix: str = "", mode: int | None = None) -> Iterator[tuple[Path, BinaryIO]]:
    """Yield a temp file in `final_dir` (same filesystem, so the later rename is atomic), of `mode` (`new_temp_file`).

    The file is fsynced when the block ends and removed if the block raises; callers
    move it into place with `commit_file`. Wrap it in `naming_failures(final)` so an OSError names the file.
    """
    make_folder(final_dir)
    sweep_dead_temps(final_dir)
    fd, name = new_temp_file(final_dir, suffix, mode)
    temp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield temp, handle
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def atomic_write(final: Path, write: Callable[[BinaryIO], None], *, private: bool = False) -> None:
    """Write `final` atomically: `write` fills a temp file that then replaces `final` in one rename. The file takes
    `output_mode(final)`, or 0600 when `private` (a secret: no other account may read it)."""
    with naming_failures(final):
        with temp_file_beside(final.parent, suffix=final.suffix,
                              mode=0o600 if private else output_mode(final)) as (temp, handle):
            write(handle)
        try:
            commit_file(temp, final)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise


def atomic_write_bytes(final: Path, data: bytes, *, private: bool = False) -> None:
    """Write `data` to `final` atomically and durably (0600 when `private`: `atomic_write`)."""

    def write(handle: BinaryIO) -> None:
        handle.write(data)

    atomic_write(final, write, private=private)


def atomic_copy(source: Path, final: Path) -> None:
    """Copy `source` to `final` atomically and durably."""
    with source.open("rb") as src:

        def write(handle: BinaryIO) -> None:
            shutil.copyfileobj(src, handle)

        atomic_write(final, write)


class LockError(WriteError):
    """A folder that could not be locked: the message names it, the reason and what to do."""

    def __init__(self, folder: Path, cause: OSError) -> None:
        super().__init__(folder, cause)
        self.message = f"cannot lock {folder}: {os_reason(cause)}; {path_advice(folder, cause)}; nothing was written"


def lock_exclusive(fd: int, folder: Path, *, wait: bool = True) -> None:
    """Take an exclusive lock on `folder`, open as `fd` (BlockingIOError when held and not `wait`); LockError when
    its file system cannot lock."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise
    except OSError as error:
        raise LockError(folder, error) from None


def lock_holders(fd: int) -> list[int]:
    """The ids of the processes that hold an flock on the file open as `fd`, as /proc/locks lists them ([] where it
    cannot tell: no /proc, another pid namespace's process)."""
    try:
        found = os.fstat(fd)
        listing = Path("/proc/locks").read_text()
    except OSError:
        return []
    where = f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}"
    holders: list[int] = []
    for line in listing.splitlines():  # "1: FLOCK  ADVISORY  WRITE 4242 00:2d:1234 0 EOF"; a waiter's has "->"
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == where and fields[4].isdigit():
            holders.append(int(fields[4]))
    return [pid for pid in dict.fromkeys(holders) if pid > 0]


def folder_in_use(folder: Path) -> bool:
    """Whether another process holds `folder`'s lock (`folder_lock`) now: a command is writing the folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # released by the close below
    except BlockingIOError:
        return True
    except OSError:
        return False  # a file system that cannot lock tells nothing
    finally:
        os.close(fd)
    return False


@contextmanager
def folder_lock(folder: Path, waiting: str | None = None) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (created if missing) for the block: two commands writing one output folder
    take turns instead of mixing their files. The lock is on the folder itself, so it leaves no file behind.
    `waiting`, when given, is printed to standard error when another process holds the lock."""
    with naming_failures(folder):
        make_folder(folder)
        fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            lock_exclusive(fd, folder, wait=waiting is None)
        except BlockingIOError:
            print(waiting, file=sys.stderr, flush=True)
            lock_exclusive(fd, folder)
        yield
    finally:
        os.close(fd)  # closing releases the lock
