"""The dataset repository's own clean and smudge filters (`filter.X.clean`, `.smudge`, `.process` in its config,
applied by `.gitattributes` or `.git/info/attributes`): git runs them at `git status`, `add`, `stash`, `read-tree -u`
and `hash-object --path`, and a publish waited on them for ever.

A filter is part of what a version's files are (git-lfs is one), so a publish keeps it; but one that never answers (a
`git-lfs` waiting on an unreachable server, a prompt no one can answer, a program that hangs) held the publish, and
the repository's lock with it, at `git status` before it wrote or at `git add` half way, its files in the folder and
no commit; and one that failed stopped it with git's words and "fix the repository state". How long a filter of a
large dataset may take is not known, so a git command that runs filters is stopped only once it has stalled: no
process of it has used CPU time, read or written anything, or been ready to run, for COWORKENV_FILTER_TIMEOUT_S
(60 s). Only where the repository's config names a filter: a git command elsewhere runs as before.
"""

from __future__ import annotations

import locale
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from coworkenv.store._git_hook import seconds_setting, stop_group
from coworkenv.store._git_locks import git_locks

FILTER_TIMEOUT_ENV = "COWORKENV_FILTER_TIMEOUT_S"
DEFAULT_FILTER_TIMEOUT_S = 60.0
_PROC = Path("/proc")
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


def filters_named(listing: str) -> dict[str, dict[str, str]]:
    """The filters of `git config -z --get-regexp ^filter\\.` output: name -> {clean|smudge|process|required: value}."""
    found: dict[str, dict[str, str]] = {}
    for entry in listing.split("\0"):
        key, _, value = entry.partition("\n")
        name, dot, setting = key.removeprefix("filter.").rpartition(".")
        if key.startswith("filter.") and dot and setting in ("clean", "smudge", "process", "required"):
            found.setdefault(name, {})[setting] = value
    return found


def described(filters: dict[str, dict[str, str]]) -> str:
    """`filter.lfs.clean = git-lfs clean -- %f, ...`: the programs of `filters`, each cut to 120 characters."""
    shown = [f"filter.{name}.{setting} = `{value[:120]}`" for name, settings in sorted(filters.items())
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


def run_watched(argv: Sequence[str], cwd: Path, env: dict[str, str], input: str | None, stall_s: float,
                git_dir: Path) -> subprocess.CompletedProcess[str] | None:
    """Run git (`argv`) as `subprocess.run(..., capture_output=True, text=True)` would, but stop it, with every
    process it started (its filters), once none of them has done anything for `stall_s` (None then), and remove the
    lock files it left in `git_dir`. Interrupted (Ctrl-C), it is stopped the same way. It runs in a session of its
    own, its output to unnamed files: a filter left running cannot hold a pipe open."""
    encoding = locale.getencoding()
    started = time.time()
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        if input is not None:
            stdin.write(input.encode(encoding))
            stdin.seek(0)
        process = subprocess.Popen(list(argv), cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr,
                                   start_new_session=True)
        try:
            if not _waited(process, stall_s):
                stop_group(process)
                for lock in git_locks(git_dir, cwd):
                    if not lock.holders and time.time() - lock.age_s >= started - 1:
                        lock.path.unlink(missing_ok=True)  # its own, left by the command stopped
                return None
        except BaseException:
            stop_group(process)
            raise
        said = []
        for output in (stdout, stderr):
            output.seek(0)
            said.append(output.read().decode(encoding).replace("\r\n", "\n").replace("\r", "\n"))
    return subprocess.CompletedProcess(list(argv), process.returncode, said[0], said[1])


def _waited(process: subprocess.Popen[bytes], stall_s: float) -> bool:
    """Whether `process` ended before its group went `stall_s` without doing anything."""
    pause = 0.02
    last: object = None
    quiet_since = time.monotonic()
    while True:
        try:
            process.wait(timeout=pause)
            return True
        except subprocess.TimeoutExpired:
            pass
        pause = min(pause * 2, 0.25)
        seen, running = _activity(process.pid)
        now = time.monotonic()
        if running or seen != last:
            last, quiet_since = seen, now
        elif now - quiet_since >= stall_s:
            return False


def _activity(group: int) -> tuple[frozenset[tuple[int, int, int]], bool]:
    """What the processes of process group `group` have done so far, (pid, CPU ticks, bytes read and written) each,
    and whether one of them is running or ready to run."""
    seen: set[tuple[int, int, int]] = set()
    running = False
    try:
        entries = list(os.scandir(_PROC))
    except OSError:  # no /proc (not Linux): what it does cannot be seen, so it is never taken for stalled
        return frozenset(), True
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != group:
                continue
            running = running or fields[0] == "R"
            try:
                io = dict(line.split(": ", 1) for line in Path(entry.path, "io").read_text().splitlines())
                moved = int(io.get("rchar", 0)) + int(io.get("wchar", 0))
            except (OSError, ValueError):
                moved = 0
            seen.add((int(entry.name), int(fields[11]) + int(fields[12]), moved))
        except (OSError, IndexError, ValueError):  # gone, or another user's
            continue
    return frozenset(seen), running
