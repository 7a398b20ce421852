"""Fault corpus, a program of the local dataset repository's that never ends: git runs what a repository names (its
post-commit hook, its file system monitor), and a publish into it waited for ever. faults52 made a publish run the
post-commit hook once the version is committed and tagged; one that hangs (a push to an unreachable backup, a prompt
no one can answer) held the publish, and the repository's lock with it, for good; so did one that ended at once but
left a child in the background (`git push &`), which kept the pipe the publish read its output from open; and a
`core.fsmonitor` program that never answered held it at `git status`, before anything was written.

Now the hook runs within a time limit (COWORKENV_HOOK_TIMEOUT_S, 60 s), is stopped with what it started when it runs
over, told as a warning (the version is committed and tagged; the hook's work is not done); the publish waits for
the hook's process alone, as git does, and runs no file system monitor. A time limit that is not a number of
seconds stops the publish before it writes anything.

On `main` each case hangs: the publish runs in a thread here, given 10 s (a hang: "DID NOT END")."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import (
    copied_repo,
    ended,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

HANG_S = 20  # what each hanging program sleeps: on `main`, the left thread ends after it


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two versions' folders (a checkpoint's, say): v1 and v2."""
    return version_folders(tmp_path_factory, "weights.txt")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    """A repository holding v1, published once for the module; each case works on a copy."""
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def repo(tmp_path: Path, published: Path) -> Path:
    return copied_repo(published, tmp_path)


def _hook(repo: Path, name: str, body: str) -> Path:
    hook = repo / ".git" / "hooks" / name
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f"#!/bin/sh\n{body}\n")
    os.chmod(hook, 0o755)
    return hook


def _ends(call: Callable[[], object], within_s: float = 10.0) -> object:
    """What `call` returns, run in a thread given `within_s`; fails when it has not ended by then (a hang)."""
    result = ended(call, within_s, "the publish hangs")[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _clean_and_tagged(repo: Path, version: str) -> None:
    assert git_quiet(repo, "rev-parse", "HEAD") == git_quiet(repo, "rev-parse", f"{version}^{{commit}}")
    assert git_quiet(repo, "-c", "core.fsmonitor=", "status", "--porcelain", "--untracked-files=all") == ""


def test_a_post_commit_hook_that_never_ends_is_stopped_and_told(
        tmp_path: Path, repo: Path, folders: dict[str, Path],
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COWORKENV_HOOK_TIMEOUT_S", "0.5")
    pid_file = tmp_path / "child.pid"
    publisher = LocalGitPublisher(repo)
    hook = _hook(repo, "post-commit", f'echo "pushing to backup"\nsleep {HANG_S} &\necho $! > "{pid_file}"\nwait')
    with caplog.at_level(logging.WARNING):
        result = _ends(lambda: publish_version(repo, folders, "v2"))
    assert getattr(result, "tag", None) == "v2"
    assert publisher.published_versions() == ["v1", "v2"]
    _clean_and_tagged(repo, "v2")
    told = caplog.text
    assert str(hook) in told and "did not end within 0.5 s" in told and "stopped it" in told
    assert "v2 is published (committed and tagged)" in told and "COWORKENV_HOOK_TIMEOUT_S" in told
    assert "pushing to backup" in told  # its last line
    assert not _alive(int(pid_file.read_text())), "what the hook started was left running"
    # The repository's lock was let go: the next publish can take it.
    fd = os.open(repo, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)


def test_a_post_commit_hook_that_leaves_a_child_in_the_background_is_not_waited_for(
        tmp_path: Path, repo: Path, folders: dict[str, Path]) -> None:
    pid_file = tmp_path / "child.pid"
    publisher = LocalGitPublisher(repo)
    # `git push &` in a hook: the hook ends at once, its child holds the hook's output open.
    _hook(repo, "post-commit", f'sleep {HANG_S} &\necho $! > "{pid_file}"\nexit 0')
    try:
        _ends(lambda: publish_version(repo, folders, "v2"), within_s=8.0)
        assert publisher.published_versions() == ["v1", "v2"]
        _clean_and_tagged(repo, "v2")
        assert _alive(int(pid_file.read_text())), "the hook's background work was stopped (git leaves it running)"
    finally:
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text()), 9)


def test_a_file_system_monitor_that_never_answers_is_not_run(
        tmp_path: Path, repo: Path, folders: dict[str, Path]) -> None:
    ran = tmp_path / "monitor-ran"
    publisher = LocalGitPublisher(repo)
    monitor = _hook(repo, "fsmonitor-never", f'touch "{ran}"\nexec sleep {HANG_S}')
    git_quiet(repo, "config", "core.fsmonitor", str(monitor))
    _ends(lambda: publish_version(repo, folders, "v2"), within_s=8.0)
    assert publisher.published_versions() == ["v1", "v2"]
    assert not ran.exists()
    _clean_and_tagged(repo, "v2")


@pytest.mark.parametrize("setting", ["soon", "0", "-5", "nan"])
def test_a_hook_time_limit_that_is_not_seconds_stops_the_publish_before_it_writes(
        repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        setting: str) -> None:
    head = git_quiet(repo, "rev-parse", "HEAD")
    monkeypatch.setenv("COWORKENV_HOOK_TIMEOUT_S", setting)
    with pytest.raises(PublishError) as refused:
        publish_version(repo, folders, "v2")
    told = str(refused.value)
    assert f"COWORKENV_HOOK_TIMEOUT_S={setting!r}" in told and "nothing was published" in told
    assert git_quiet(repo, "rev-parse", "HEAD") == head and git_quiet(repo, "tag", "--list").split() == ["v1"]


def test_a_publish_waiting_for_another_says_so_and_names_it(
        repo: Path, folders: dict[str, Path], caplog: pytest.LogCaptureFixture) -> None:
    """The next publish into a repository whose lock a publish holds (one that hangs) waited without a word."""
    fd = os.open(repo, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # what a running publish holds
    publisher = LocalGitPublisher(repo)
    waiting = threading.Thread(target=publish_version, args=(repo, folders, "v2"), daemon=True)
    try:
        with caplog.at_level(logging.WARNING):
            waiting.start()
            for _ in range(250):  # until it says it waits, or 5 s
                if "holds its lock" in caplog.text or not waiting.is_alive():
                    break
                time.sleep(0.02)
            told = caplog.text
    finally:
        os.close(fd)
    waiting.join(8.0)
    assert not waiting.is_alive()
    assert f"another publish into {repo} (process {os.getpid()}) holds its lock: waiting for it to end" in told
    assert "stop it" in told
    assert publisher.published_versions() == ["v1", "v2"]
