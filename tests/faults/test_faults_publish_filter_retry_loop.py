"""Fault corpus, a clean or smudge filter of the local dataset repository's in a retry loop that sleeps between tries
(`until curl -sf "$LFS_URL/..."; do sleep 5; done`, a `git-lfs` waiting for a server that is down, a script polling
for a file another job never writes): it never answers, but it looked busy to the publish's watch (`run_watched`,
faults44), so the publish, and the repository's lock with it, waited for ever at `git add` half way, the new
version's files in the folder and no commit.

The watch took any change in the processes of the git command for progress: a new process (each `sleep`, each try)
and their reads, which Linux adds to the parent's count (/proc/PID/io) when it reaps a child (each `sleep`'s loader
reads its libraries). Now a process that appears is no progress by itself, and what short-lived processes read is
not either: only what a process seen at two looks reads or writes, git's own work, and what short-lived processes
write in all past 64 KiB (a try's line of error is not; a filter working in short children moves the file's data).
The loop is stopped after COWORKENV_FILTER_TIMEOUT_S as a filter that sleeps is, and the publish says which filter,
where, and what to do; the folder keeps its last version, and no lock is left.

On `main` each loop below was waited for to its end (about 8 s, under a limit of 1 s) and its version published."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import PublishError
from tests.faults.harness import (
    copied_repo,
    ended,
    filter_x,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

TRIES = 40  # a loop's tries, 0.2 s apart: on `main` it ends after about 8 s, and the version is published
LIMIT_S = "1"


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    """A repository holding v1, published once for the module; each case works on a copy."""
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def repo(tmp_path: Path, published: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = copied_repo(published, tmp_path)
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", LIMIT_S)
    return copy


def _ends(call: Callable[[], object], within_s: float) -> tuple[object, float]:
    return ended(call, within_s, "the publish waits on the loop")


def _retrying(tmp_path: Path, attempt: str) -> Path:
    """A filter program that tries `attempt` until it succeeds (never here), TRIES times, 0.2 s apart, then gives up
    and passes its input through (so that on `main` the loop ends)."""
    program = tmp_path / "retries"
    program.write_text(f"#!/bin/sh\nn=0\nuntil {attempt}; do\n  n=$((n + 1))\n  [ $n -ge {TRIES} ] && break\n"
                       "  sleep 0.2\ndone\nexec cat\n")
    program.chmod(0o755)
    return program


# A try that fails: silent (`curl -sf` to a server that is down, its error to /dev/null), and one whose error goes to
# the filter's error output (git's), a line at each try.
ATTEMPTS = {
    "silent": "ls /nonexistent/server/ready >/dev/null 2>&1",
    "error told": "ls /nonexistent/server/ready",
}


@pytest.mark.parametrize("attempt", list(ATTEMPTS), ids=list(ATTEMPTS))
def test_a_clean_filter_in_a_retry_loop_is_stopped_as_one_that_sleeps(
        tmp_path: Path, repo: Path, folders: dict[str, Path], attempt: str) -> None:
    program = _retrying(tmp_path, ATTEMPTS[attempt])
    filter_x(repo, clean=str(program))
    failed, took = _ends(lambda: publish_version(repo, folders, "v2"), within_s=15)
    assert isinstance(failed, PublishError), f"published after {took:.1f} s: the loop was waited for to its end"
    told = str(failed)
    assert f"filter.x.clean = `{program}`" in told and str(repo) in told
    assert f"did nothing for {LIMIT_S} s" in told and "COWORKENV_FILTER_TIMEOUT_S" in told and "retry loop" in told
    assert "nothing was published" in told
    assert took < 6, f"stopped only after {took:.1f} s, under a limit of {LIMIT_S} s"
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"  # what readers of the folder load
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"
    found = subprocess.run(["pgrep", "-f", str(program)], capture_output=True, text=True)
    assert found.stdout == "", "the filter was left running"


# A filter whose work is done by short-lived programs, each under a look of the watch, 0.2 s apart, for about 0.8 s in
# all (past the limit): their data goes to git (the file, 3 bytes at a time). One whose short programs write to a file
# or a pipe is the last case's.
WORKING = {
    "chunks to git": 't="$GIT_DIR/work-$$"; cat > "$t"; for i in 0 1 2 3; do '
                     'dd if="$t" bs=3 skip=$i count=1 2>/dev/null; sleep 0.2; done; rm -f "$t"',
}


@pytest.mark.parametrize("work", list(WORKING), ids=list(WORKING))
def test_a_filter_working_in_short_children_past_the_limit_is_not_stopped(
        repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, work: str) -> None:
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", "0.5")
    filter_x(repo, clean=f"sh -c '{WORKING[work]}'")
    result, _took = _ends(lambda: publish_version(repo, folders, "v2"), within_s=30)
    assert not isinstance(result, BaseException), result
    assert git_quiet(repo, "show", "v2:weights.bin") == "v2 weights\n"
    assert not list((repo / ".git").glob("work-*"))


def test_the_watch_takes_no_new_process_for_progress() -> None:
    """The class, without git: a shell in a retry loop of `sleep`s and tries is seen doing nothing between two looks
    0.6 s apart; one whose short children move data (128 KiB through a pipe, each time) is seen working."""
    from coworkenv.store._git_filter import _activity

    for loop, busy in (("while :; do ls / >/dev/null 2>&1; sleep 0.05; done", False),
                       ("while :; do head -c 131072 /dev/zero | cat >/dev/null; sleep 0.05; done", True)):
        # The loop in the background: the group's leader (`sleep`, as git is) is not the loop's shell.
        shell = subprocess.Popen(["sh", "-c", f"({loop}) & exec sleep 30"], start_new_session=True)
        try:
            time.sleep(0.2)
            first = _activity(shell.pid)
            time.sleep(0.6)
            assert _activity(shell.pid).moved_on(first) is busy, loop
        finally:
            os.killpg(shell.pid, 9)
            shell.wait()
