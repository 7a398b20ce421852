"""The dataset repository's own clean and smudge filters (`filter.X.clean`, `.smudge`, `.process` in its config,
applied by `.gitattributes` or `.git/info/attributes`): git runs them at `git status`, `add`, `stash`, `read-tree -u`
and `hash-object --path`, and a publish waited on them for ever.

A filter is part of what a version's files are (git-lfs is one), so a publish keeps it; but one that never answers (a
`git-lfs` waiting on an unreachable server, a prompt no one can answer, a program that hangs) held the publish, and
the repository's lock with it, at `git status` before it wrote or at `git add` half way, its files in the folder and
no commit; and one that failed stopped it with git's words and "fix the repository state". How long a filter of a
large dataset may take is not known, so a git command that runs filters is stopped only once it has stalled: no
process of it has read or written anything, and git itself has used no CPU time and not been ready to run, for
COWORKENV_FILTER_TIMEOUT_S (60 s). A filter's CPU time alone is no progress: one caught in a loop (busy for ever,
reading and writing nothing) had kept the publish and its lock for good, as one that sleeps did before. Nor are
processes that come and go: a filter in a retry loop (`until try; do sleep 5; done`) starts a `sleep` and a try each
time, and Linux adds what a reaped child read to its parent's count, so it looked busy for ever; what counts is what a
process seen at two looks read or wrote itself, and what short-lived ones wrote past CHILDREN_WRITES_PROGRESS. Only where the repository's config names a filter: a git command elsewhere
runs as before.

A filter whose output never ends (a program looping on its output, one reading a device) never stalls: git holds a
filter's whole output of a file in memory before it stores or writes it, so git's memory grew until the machine had
none left (the kernel's OOM killer then stops whichever process it picks, on a shared machine another user's). So a
watched git command is also stopped once its processes hold more memory than COWORKENV_FILTER_MAX_MEMORY_MB (half of
what this machine, or the container's memory limit, allows, by default): a file that needs more would not be filtered
here without taking the memory of everything else on the machine.

A publish reads no global or system git config (a user's signing setup, line-ending policy and the like must not
change a machine commit), but a filter the repository's attributes apply is often defined there: `git lfs install`
writes `filter.lfs.*` into the user's global config, and the repository's `.gitattributes` names `filter=lfs`. Left
out, the version's files went into git raw where the user's own git stores LFS pointers, and content published again
was taken for other content (its blob compared with a raw hash). So the `filter.*` settings of the global and
system configs (`outside_filters`) are given to a publish's git commands, under the repository's own, and watched the
same way. So is their `core.attributesFile`: the attributes file of the user's (`*.parquet filter=lfs` kept there for
every repository of theirs) applies filters as the repository's `.gitattributes` does, and without it the version's
files went into git raw too, a required filter that fails there did not stop the publish, and one that hangs was not
run to be watched.
"""

from __future__ import annotations

import contextlib
import locale
import logging
import math
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from coworkenv.store._git_hook import OutputReader, seconds_setting, stop_group
from coworkenv.store._git_locks import git_locks
from coworkenv.store._publisher import PublishError

logger = logging.getLogger(__name__)

FILTER_TIMEOUT_ENV = "COWORKENV_FILTER_TIMEOUT_S"
FILTER_MEMORY_ENV = "COWORKENV_FILTER_MAX_MEMORY_MB"
FILTER_MIN_FREE_ENV = "COWORKENV_FILTER_MIN_FREE_MB"
# What a watched git command leaves free on the repository's disk unless COWORKENV_FILTER_MIN_FREE_MB says: 1 GiB, or
# half of what was free when it began, whichever is less.
DEFAULT_MIN_FREE = 1 << 30
_MIB = 1 << 20
# The memory limits a container may set (cgroup v2, then v1); "max" or a huge number: none.
_CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
# The setting (as `git config` lists it) that names an attributes file read besides the repository's own.
ATTRIBUTES_FILE = "core.attributesfile"
DEFAULT_FILTER_TIMEOUT_S = 60.0
_PROC = Path("/proc")
# How much a watched git command and its filters may write to its error output, which goes to a file on this disk: a
# filter that logs for ever (a retry loop, `yes >&2`) is doing something at every look, so it never stalled, and
# filled the disk of the temporary folder while the publish never ended. git's and a filter's own messages are short.
ERROR_OUTPUT_LIMIT = 64 << 20
ERROR_OUTPUT_KEPT = 1 << 20  # of a watched git command's error output, its first and its last MiB are kept
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
# How a publish's errors about a filter begin: one that stalled, one that failed.
FILTER_WORDS = ("ran the repository's filters", "because a filter of the repository failed")
# How git says that a filter failed: "fatal: data/x.parquet: clean filter 'lfs' failed", "external filter 'false'
# failed 1", "smudge filter lfs failed", a long-running `process` filter that quit ("the remote end hung up").
_FILTER_FAILED = re.compile(r"(?:clean|smudge) filter '?[^'\s]+'? failed|external filter '[^']*' failed|"
                            r"initialization for subprocess '[^']*' failed", re.IGNORECASE)


def filter_timeout_s() -> float:
    """How long a git command running the repository's filters may stall (COWORKENV_FILTER_TIMEOUT_S, or 60 s)."""
    return seconds_setting(FILTER_TIMEOUT_ENV, DEFAULT_FILTER_TIMEOUT_S,
                           "how long a publish waits on a dataset repository's clean or smudge filter that does "
                           "nothing")


def filter_max_memory_bytes() -> int:
    """How much memory the processes of a git command running the repository's filters may hold, in bytes:
    COWORKENV_FILTER_MAX_MEMORY_MB, or half of what this machine (or its container) may use. PublishError for a
    setting that is not a number of MiB above 0, read before a publish writes anything."""
    given = os.environ.get(FILTER_MEMORY_ENV, "").strip()
    if not given:
        return usable_memory_bytes() // 2
    try:
        mib = float(given)
    except ValueError:
        mib = math.nan
    if not math.isfinite(mib) or mib <= 0:
        raise PublishError(
            f"{FILTER_MEMORY_ENV}={given!r} is not a number of MiB above 0 (how much memory a git command running a "
            "dataset repository's clean or smudge filter may hold before a publish stops it); set it to one, e.g. "
            f"4096, or unset it (half of this machine's memory, {usable_memory_bytes() // 2 // _MIB} MiB); nothing "
            "was published")
    return max(1, int(mib * _MIB))


def filter_min_free_bytes(free: int | None = None) -> int:
    """How much space a git command running the repository's filters must leave free on the repository's disk, in
    bytes: COWORKENV_FILTER_MIN_FREE_MB, or DEFAULT_MIN_FREE or half of `free` (what is free now), whichever is less.
    PublishError for a setting that is not a number of MiB of 0 or more, read before a publish writes anything."""
    given = os.environ.get(FILTER_MIN_FREE_ENV, "").strip()
    if not given:
        return DEFAULT_MIN_FREE if free is None else min(DEFAULT_MIN_FREE, free // 2)
    try:
        mib = float(given)
    except ValueError:
        mib = math.nan
    if not math.isfinite(mib) or mib < 0:
        raise PublishError(
            f"{FILTER_MIN_FREE_ENV}={given!r} is not a number of MiB of 0 or more (how much space a git command "
            "running a dataset repository's clean, smudge or process filter must leave free on the repository's disk "
            "before a publish stops it); set it to one, e.g. 1024, or unset it (1 GiB, or half of what is free when "
            "the command begins); nothing was published")
    return int(mib * _MIB)


def free_bytes(path: Path) -> int | None:
    """The space free for this user on the disk of `path`; None where it cannot be known."""
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def usable_memory_bytes() -> int:
    """The memory this process may use: the machine's, or its container's limit (cgroup) where that is smaller."""
    try:
        usable = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):  # not known here
        usable = 1 << 62
    for limit in _CGROUP_LIMITS:
        try:
            text = limit.read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < usable:
            usable = int(text)
    return usable


def may_name_filters(git_dir: Path) -> bool:
    """Whether the config of the repository of `git_dir` may name a filter (or include a file that does): the configs
    a publish reads (its own, a linked worktree's, the common one), read as text; an unreadable one may."""
    configs = [git_dir / "config", git_dir / "config.worktree"]
    try:
        common = (git_dir / "commondir").read_text().strip()
    except OSError:
        common = ""
    if common:
        configs.append(git_dir / common / "config")
    for config in configs:
        try:
            text = config.read_text(errors="replace").lower()
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if "filter" in text or "include" in text:
            return True
    return False


def outside_filters(git_dir: Path, work_tree: Path, environ: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """The filter settings (`filter.X.clean`, `.smudge`, `.process`, `.required`) and the attributes file that
    applies them (`core.attributesfile`, ATTRIBUTES_FILE) of the system's and the user's global git config, as the
    user's git reads them (`environ`: GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM, HOME,
    XDG_CONFIG_HOME honoured, includes followed): key -> (value, the file that sets it), the global's over the
    system's. No git command runs unless one of those files mentions a filter, an attributes file or an include."""
    user = {key: value for key, value in environ.items()
            if not key.startswith("GIT_") or key in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM")}
    user["GIT_DIR"] = str(git_dir)  # `includeIf "gitdir:..."` of the global config is matched against this repository
    found: dict[str, tuple[str, str]] = {}
    for scope, files in (("--system", _system_configs(environ)), ("--global", _global_configs(environ))):
        if not any(_mentions_filters(path) for path in files):
            continue
        try:
            listing = subprocess.run(["git", "config", scope, "--includes", "--show-origin", "-z", "--get-regexp",
                                      r"^(filter\.|core\.attributesfile$)"], cwd=work_tree, env=user, capture_output=True, check=False,
                                     timeout=30).stdout.decode(errors="replace")
        except (OSError, subprocess.TimeoutExpired):  # git missing: the publish says so at its first command
            continue
        records = listing.split("\0")
        for origin, entry in zip(records[0::2], records[1::2], strict=False):
            key, _, value = entry.partition("\n")
            _name, dot, setting = key.removeprefix("filter.").rpartition(".")
            if key == ATTRIBUTES_FILE or (key.startswith("filter.") and dot
                                          and setting in ("clean", "smudge", "process", "required")):
                found[key] = (value, origin.removeprefix("file:"))
    return found


def _global_configs(environ: Mapping[str, str]) -> list[Path]:
    if environ.get("GIT_CONFIG_GLOBAL"):
        return [Path(environ["GIT_CONFIG_GLOBAL"])]
    home = environ.get("HOME", "")
    xdg = environ.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else "")
    return [Path(home, ".gitconfig")] * bool(home) + [Path(xdg, "git", "config")] * bool(xdg)


def _system_configs(environ: Mapping[str, str]) -> list[Path]:
    if environ.get("GIT_CONFIG_NOSYSTEM", "").strip().lower() in ("1", "true", "yes", "on"):
        return []
    if environ.get("GIT_CONFIG_SYSTEM"):
        return [Path(environ["GIT_CONFIG_SYSTEM"])]
    found = [Path("/etc/gitconfig")]
    git = shutil.which("git", path=environ.get("PATH", os.defpath))
    if git is not None:  # git's own prefix: /usr/local/etc/gitconfig for a git built into /usr/local
        prefix = Path(git).resolve().parent.parent
        found.append(Path("/etc/gitconfig") if prefix == Path("/usr") else prefix / "etc" / "gitconfig")
    return found


def _mentions_filters(path: Path) -> bool:
    try:
        text = path.read_text(errors="replace").lower()
    except FileNotFoundError:
        return False
    except OSError:  # unreadable here: git tells what it reads
        return True
    return "filter" in text or "include" in text or "attributesfile" in text


def filters_named(listing: str) -> dict[str, dict[str, str]]:
    """The filters of `git config -z --get-regexp ^filter\\.` output: name -> {clean|smudge|process|required: value}."""
    found: dict[str, dict[str, str]] = {}
    for entry in listing.split("\0"):
        key, _, value = entry.partition("\n")
        name, dot, setting = key.removeprefix("filter.").rpartition(".")
        if key.startswith("filter.") and dot and setting in ("clean", "smudge", "process", "required"):
            found.setdefault(name, {})[setting] = value
    return found


def described(filters: dict[str, dict[str, str]], origins: Mapping[str, str] | None = None) -> str:
    """`filter.lfs.clean = git-lfs clean -- %f, ...`: the programs of `filters`, each cut to 120 characters; with
    `origins` (key -> the file outside the repository that sets it), each such one says where it is set."""
    origins = origins or {}

    def where(key: str) -> str:
        return f" (set in {origins[key]})" if key in origins else ""

    shown = [f"filter.{name}.{setting} = `{value[:120]}`{where(f'filter.{name}.{setting}')}"
             for name, settings in sorted(filters.items())
             for setting, value in sorted(settings.items()) if setting != "required" and value]
    return ", ".join(shown) or "a filter named in its config"


def filter_failed(stderr: str) -> str | None:
    """git's line saying that a filter failed, when `stderr` holds one."""
    found = _FILTER_FAILED.search(stderr)
    if found is None:
        return None
    start = stderr.rfind("\n", 0, found.start()) + 1
    end = stderr.find("\n", found.end())
    return stderr[start:end if end >= 0 else len(stderr)].strip()


def without_filters(filters: dict[str, dict[str, str]]) -> list[str]:
    """`git -c` options that turn every filter of `filters` off for one command (empty programs, none required)."""
    options: list[str] = []
    for name in sorted(filters):
        for setting in ("clean", "smudge", "process"):
            options += ["-c", f"filter.{name}.{setting}="]
        options += ["-c", f"filter.{name}.required=false"]
    return options


@dataclass(frozen=True)
class Stopped:
    """Why `run_watched` stopped a git command: it stalled (all None), its processes came to hold `memory_bytes`,
    over the limit it was given, they wrote `error_bytes` to its error output, over ERROR_OUTPUT_LIMIT, or the
    repository's disk had only `free_bytes` left, under the space it was to leave free."""

    memory_bytes: int | None = None
    error_bytes: int | None = None
    free_bytes: int | None = None
    limit_bytes: int = 0  # the limit passed
    file: Path | None = None  # with `free_bytes`: a file they wrote on another disk than the repository's, filled


def run_watched(argv: Sequence[str], cwd: Path, env: dict[str, str], input: str | None, stall_s: float,
                git_dir: Path, max_memory: int | None = None,
                min_free: int | None = None) -> subprocess.CompletedProcess[str] | Stopped:
    """Run git (`argv`) as `subprocess.run(..., capture_output=True, text=True)` would, but stop it, with every
    process it started (its filters), once none of them has done anything for `stall_s`, once they hold more than
    `max_memory` bytes of memory (a filter whose output never ends: git holds it whole), or once they have written more
    than ERROR_OUTPUT_LIMIT to the error output (a filter logging for ever), or once the disk of `git_dir` has less
    than `min_free` bytes free (a filter writing for ever into its own store, `.git/lfs/objects`: a disk filled up
    fails every writer on it, other users' and this publish's own), or once another disk it writes a file on has
    less than its limit free (`_OtherDisks`: a filter's copies or log in /tmp), and remove the lock files its processes held
    in `git_dir` (`_own_locks`: by inode, never a lock another git took meanwhile); `Stopped` says which. Interrupted (Ctrl-C), it is stopped the same way, its own locks removed too. It runs in a session
    of its own, its output to an unnamed file and its error output to a pipe read here (`OutputReader`), which is not
    read to its end: a filter left running cannot hold the publish."""
    encoding = locale.getencoding()
    started = time.time()
    largest = largest_file_bytes(free_bytes(git_dir), min_free)
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stdout:
        if input is not None:
            stdin.write(input.encode(encoding))
            stdin.seek(0)
        read_end, write_end = os.pipe()
        try:
            os.set_blocking(read_end, False)
            process = subprocess.Popen(list(argv), cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=write_end,
                                       start_new_session=True,
                                       preexec_fn=None if largest is None else _file_size_limit(largest))
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        # Its error output goes to a pipe read here, its first and last ERROR_OUTPUT_KEPT bytes kept: a filter that
        # logs for ever (`yes >&2`) takes no disk however late a look comes (it waits on the pipe), where a file of
        # the temporary folder grew by gigabytes between two looks of a loaded machine.
        errors = OutputReader(read_end, tail=ERROR_OUTPUT_KEPT, head=ERROR_OUTPUT_KEPT)
        errors.start()
        try:
            stopped = _waited(process, stall_s, max_memory, lambda: errors.total, git_dir, min_free)
            free = None if stopped is not None or min_free is None else free_bytes(git_dir)
            if free is not None and min_free is not None and free < min_free:
                # Ended under the limit: a file of it reached `largest` (its writer killed, SIGXFSZ) between looks.
                stopped = Stopped(free_bytes=free, limit_bytes=min_free)
            own: set[tuple[int, int]] = set()
            if stopped is not None:
                own = _stopped_holding_locks(process)
                stop_group(process)
        except BaseException:
            # Interrupted (Ctrl-C, or a stop signal the CLI turns into one: a closed terminal, a container stopped):
            # stopped as a stalled command is, its own locks removed here and no other. Left to the next publish,
            # the lock of a git killed after the grace stopped this publish's own restore ("index.lock exists"), and
            # with its marker gone the next publish took it for someone else's and refused for ten minutes.
            own = _stopped_holding_locks(process)
            stop_group(process)
            _remove_own_locks(git_dir, cwd, own, started)
            raise
        finally:
            errors.finish()
            errors.close()
        if stopped is not None:
            _remove_own_locks(git_dir, cwd, own, started)
            return stopped
        stdout.seek(0)
        said = [text.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
                for text in (stdout.read(), errors.kept)]
    return subprocess.CompletedProcess(list(argv), process.returncode, said[0], said[1])


def _stopped_holding_locks(process: subprocess.Popen[bytes]) -> set[tuple[int, int]]:
    """Freeze the group of `process` (SIGSTOP) and return the (device, inode) of the lock files its processes hold
    open (`_own_locks`); then SIGTERM it and let it go on (SIGCONT), so that it takes no lock after the look: each
    process runs its SIGTERM handler first (git's removes its own lock files) and `stop_group` ends what is left."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGSTOP)
    try:
        return _own_locks(process.pid)
    finally:
        for sent in (signal.SIGTERM, signal.SIGCONT):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sent)


def _own_locks(group: int) -> set[tuple[int, int]]:
    """(device, inode) of every lock file (`*.lock`) that a process of process group `group` holds open.

    A git command holds its lock file open while it works (`index.lock` through `git add` and the filters it runs),
    so these are the locks a stopped command may leave. A lock is told as its by inode, not by date: a lock dated
    after the command began that no visible process holds may be another git's, taken meanwhile by a process this
    machine's /proc does not show (a container or PID namespace of its own, another machine on a network file
    system), and deleting it lost that git's write and let a second git take the lock at once."""
    found: set[tuple[int, int]] = set()
    try:
        entries = list(os.scandir(_PROC))
    except OSError:  # no /proc: none is known to be its own, so none is removed
        return found
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rpartition(")")[2].split()
            if int(fields[2]) != group:
                continue
            for fd in os.scandir(Path(entry.path, "fd")):
                with contextlib.suppress(OSError):
                    if os.readlink(fd.path).endswith(".lock"):
                        held = os.stat(fd.path)
                        found.add((held.st_dev, held.st_ino))
        except (OSError, IndexError, ValueError):  # gone, or another user's
            continue
    return found


def _remove_own_locks(git_dir: Path, work_tree: Path, own: set[tuple[int, int]], started: float) -> None:
    """Remove the lock files in `git_dir` that are still the ones a stopped git command held (`own`, by inode); any
    other lock made since it began and held by no visible process is left, and said: it may be another git's."""
    for lock in git_locks(git_dir, work_tree):
        try:
            now = lock.path.stat()
        except OSError:
            continue
        if (now.st_dev, now.st_ino) in own:
            lock.path.unlink(missing_ok=True)  # its own, left by the command stopped
        elif not lock.holders and time.time() - lock.age_s >= started - 1:
            logger.warning("left %s in place after stopping a git command there: the command did not hold it, so "
                           "another git (in a process this machine cannot see: another container or machine) may "
                           "be writing under it; if no git command runs in %s, delete it", lock.path, work_tree)


# How far under the space it is to leave free a single file written by a watched git command may take the disk: its
# processes run with RLIMIT_FSIZE at what was free when it began, less that space, plus this (at most 64 MiB, a quarter
# of the space). The kernel stops a writer there (SIGXFSZ) however late a look comes, and the disk is then far
# enough under the space to leave that the look made after the command ends tells it, though other writers free a
# little meanwhile.
_FILE_LIMIT_MARGIN = 64 << 20


def largest_file_bytes(free: int | None, min_free: int | None) -> int | None:
    """The largest file a watched git command and its filters may write (their RLIMIT_FSIZE), where `free` bytes are
    free on the repository's disk and `min_free` are to stay so; None (no limit) where either is not known."""
    if free is None or min_free is None:
        return None
    margin = max(1 << 20, min(_FILE_LIMIT_MARGIN, min_free // 4))
    return max(0, free - min_free) + margin


def _file_size_limit(largest: int) -> Callable[[], None]:
    """What the child of a watched git command runs before git: RLIMIT_FSIZE at `largest` bytes (soft and hard, so
    that a filter cannot raise it), or at the limit it already has where that is lower."""

    def limit() -> None:
        _soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        bound = largest if hard == resource.RLIM_INFINITY else min(largest, hard)
        resource.setrlimit(resource.RLIMIT_FSIZE, (bound, bound))

    return limit


def _waited(process: subprocess.Popen[bytes], stall_s: float, max_memory: int | None,
            error_output: Callable[[], int], disk: Path | None = None, min_free: int | None = None) -> Stopped | None:
    """None when `process` ended before its group went `stall_s` without doing anything (`_Look.moved_on`), came to
    hold more than `max_memory` bytes, wrote more than ERROR_OUTPUT_LIMIT to its error output (`error_output`: the bytes so
    far) or
    left less than `min_free` bytes free on the disk of `disk`; else why it is to be stopped."""
    pause = 0.02
    last: _Look | None = None
    quiet_since = time.monotonic()
    other_disks = _OtherDisks(disk, min_free or 0)
    while True:
        try:
            process.wait(timeout=pause)
            return None
        except subprocess.TimeoutExpired:
            pass
        pause = min(pause * 2, 0.25)
        look = _activity(process.pid)
        if max_memory is not None and look.memory > max_memory:
            return Stopped(memory_bytes=look.memory, limit_bytes=max_memory)
        written = error_output()
        if written > ERROR_OUTPUT_LIMIT:
            return Stopped(error_bytes=written, limit_bytes=ERROR_OUTPUT_LIMIT)
        free = None if disk is None or min_free is None else free_bytes(disk)
        if free is not None and min_free is not None and free < min_free:
            return Stopped(free_bytes=free, limit_bytes=min_free)
        if disk is not None and min_free is not None:
            filled = other_disks.filled(process.pid)
            if filled is not None:
                return filled
        now = time.monotonic()
        if last is None or look.moved_on(last):
            last, quiet_since = look, now
        elif now - quiet_since >= stall_s:
            return Stopped()
        else:  # each process is compared with its last look; what all wrote, with where it was at the last progress
            last = _Look(look.done, min(look.written, last.written), look.running, look.memory)


# How much the short-lived processes of a watched git command (those reaped between two looks) must write, in all, to
# count as progress: a filter in a retry loop writes a line or none at each try (`curl: (7) Failed to connect`, to
# /dev/null or the error output), a filter working in short children moves the file's data.
CHILDREN_WRITES_PROGRESS = 64 << 10


@dataclass(frozen=True)
class _Look:
    """What the processes of a watched git command had done at one look (`_activity`).

    `done`: for each process, keyed by (pid, start time, name) so that a new program in a reused pid or an `exec` is
    another process, its CPU ticks (git's own processes only) and the bytes it has read and written itself (its
    threads' own counts, without those of the children it has reaped). `written`: the bytes written by the group,
    children reaped included."""

    done: Mapping[tuple[int, int, str], tuple[int, int]]
    written: int
    running: bool
    memory: int

    def moved_on(self, before: _Look) -> bool:
        """Whether something was done since `before`: git ran or used CPU time, a process seen both times read or
        wrote, or processes that came and went between the looks wrote CHILDREN_WRITES_PROGRESS. A process that
        appeared is no progress by itself, nor what a child read before it was reaped: Linux adds a reaped child's
        reads and writes to its parent's counts (/proc/PID/io), so a filter in a retry loop (`until try; do sleep 5;
        done`, each `sleep`'s loader reading its libraries, each try a line of error) looked busy for ever. A filter
        whose work is done by short children still moves on: their data reaches git (read by it), a file, or the
        next program of the filter."""
        if self.running or self.written >= before.written + CHILDREN_WRITES_PROGRESS:
            return True
        return any(key in before.done and counts != before.done[key] for key, counts in self.done.items())


def _activity(group: int) -> _Look:
    """What the processes of process group `group` have done so far (`_Look`). CPU ticks and running count for git's
    own processes only (those named `git` or as the group's leader, the git command started): git works on its objects through memory maps (no read counted), but a filter
    does its work on what it reads and writes, and one that only burns CPU is stuck in a loop (its ticks are left
    out: 0)."""
    done: dict[tuple[int, int, str], tuple[int, int]] = {}
    running = False
    resident_pages = 0
    written = 0
    try:
        leader = Path(_PROC, str(group), "stat").read_text().split(" (", 1)[1].rsplit(")", 1)[0]
    except (OSError, IndexError):
        leader = ""
    try:
        entries = list(os.scandir(_PROC))
    except OSError:  # no /proc (not Linux): what it does cannot be seen, so it is never taken for stalled
        return _Look({}, 0, True, 0)
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            head, _, rest = Path(entry.path, "stat").read_text().rpartition(")")
            fields = rest.split()
            if int(fields[2]) != group:
                continue
            name = head.partition(" (")[2]
            git_itself = name in (leader, "git")  # a wrapper script of git's leads its group
            running = running or (git_itself and fields[0] == "R")
            resident_pages += int(fields[21])
            written += _io_counts(Path(entry.path, "io")).get("wchar", 0)
            own = 0
            for thread in os.scandir(Path(entry.path, "task")):
                counts = _io_counts(Path(thread.path, "io"))
                own += counts.get("rchar", 0) + counts.get("wchar", 0)
            ticks = int(fields[11]) + int(fields[12]) if git_itself else 0
            done[(int(entry.name), int(fields[19]), name)] = (ticks, own)
        except (OSError, IndexError, ValueError):  # gone, or another user's
            continue
    return _Look(done, written, running, resident_pages * _PAGE_BYTES)


def _io_counts(path: Path) -> dict[str, int]:
    """The counts of a /proc `io` file (rchar, wchar, ...); none where it cannot be read."""
    try:
        return {key: int(value) for key, _, value in (line.partition(": ") for line in path.read_text().splitlines())}
    except (OSError, ValueError):
        return {}


class _OtherDisks:
    """The disks other than the repository's that the processes of a watched git command write files on (a filter's
    copies or logs in /tmp, $HOME or a cache folder), and how much each must keep free: `min_free`, or half of what
    it had free when first seen there, whichever is less (a small disk, a tmpfs, is not refused for a filter's
    temporary file of a few KiB). A filter writing for ever there filled that disk for every other writer on it (the
    temporary folder of every program of the machine, another user's home) and never stalled, so the publish ran on:
    the watch looked only at the repository's disk. Each look reads the files the group's processes hold open for
    writing (/proc/<pid>/fd and fdinfo's flags) and the free space of each disk they are on."""

    def __init__(self, repository: Path | None, min_free: int) -> None:
        self.min_free = min_free
        self.limits: dict[int, int] = {}  # by device
        # The repository's disk is left to its own look (its message names it): where both looked at it, a filter
        # writing between the two looks of one poll was named as filling "another disk" (a fresh clone's suite, load 8).
        self.repository_disk: int | None = None
        with contextlib.suppress(OSError):
            if repository is not None:
                self.repository_disk = disk_of(repository, os.stat(repository))

    def filled(self, group: int) -> Stopped | None:
        """A `Stopped` naming a file the processes of `group` write on a disk left with less than its limit free."""
        try:
            entries = list(os.scandir(_PROC))
        except OSError:  # no /proc: nothing to see
            return None
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                if int(Path(entry.path, "stat").read_text().rpartition(")")[2].split()[2]) != group:
                    continue
                descriptors = list(os.scandir(Path(entry.path, "fd")))
            except (OSError, IndexError, ValueError):  # gone, or another user's
                continue
            for fd in descriptors:
                stopped = self._look(Path(entry.path), fd)
                if stopped is not None:
                    return stopped
        return None

    def _look(self, process: Path, fd: os.DirEntry[str]) -> Stopped | None:
        try:
            target = os.readlink(fd.path)
            if not target.startswith("/"):  # a pipe, a socket, an anonymous file
                return None
            held = os.stat(fd.path)
            if not stat.S_ISREG(held.st_mode):
                return None
            flags = Path(process, "fdinfo", fd.name).read_text().split("flags:", 1)[1].split()[0]
            if int(flags, 8) & os.O_ACCMODE == os.O_RDONLY:
                return None
        except (OSError, IndexError, ValueError):
            return None
        file = Path(target.removesuffix(" (deleted)"))
        if disk_of(file, held) == self.repository_disk:
            return None
        free = free_bytes(file.parent)
        if free is None:
            return None
        limit = self.limits.setdefault(disk_of(file, held), min(self.min_free, free // 2))
        if free < limit:
            return Stopped(free_bytes=free, limit_bytes=limit, file=file)
        return None


def disk_of(path: Path, found: os.stat_result) -> int:
    """Which disk `path` (whose `stat` is `found`) is on: its device number."""
    return found.st_dev
