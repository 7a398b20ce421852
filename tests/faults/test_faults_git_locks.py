"""Fault corpus, git's lock files in the local dataset repository. A lock whose writer is gone (a publish killed inside
git, an old leftover) is removed by the next publish on its own; a lock that a git command of the user's holds now
(open, or across an editor it waits for) is left alone, and the publish stops with one message naming the file and
the process, before touching anything."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")


def _user_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="someone", GIT_AUTHOR_EMAIL="someone@localhost", GIT_COMMITTER_NAME="someone",
               GIT_COMMITTER_EMAIL="someone@localhost", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return env


def _published(tmp_path: Path) -> tuple[Path, LocalGitPublisher]:
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    return repo, publisher


def _stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGTERM)  # its own session: the process and what it started (an editor)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:  # started with SIGTERM ignored (inherited): not what these tests are about
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)


@pytest.fixture
def live_git(tmp_path: Path) -> Iterator[tuple[Path, LocalGitPublisher, subprocess.Popen[bytes], Path]]:
    """A user's `git commit -a` waiting for its editor: git holds index.lock (its descriptor closed meanwhile)."""
    repo, publisher = _published(tmp_path)
    (repo / "README.md").write_text("the user's edit\n")
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsleep 600\n")
    editor.chmod(0o755)
    git = subprocess.Popen(["git", "-C", str(repo), "commit", "-a"], env={**_user_env(), "GIT_EDITOR": str(editor)},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        lock = repo / ".git" / "index.lock"
        end = time.monotonic() + 60
        while not lock.exists():
            assert git.poll() is None and time.monotonic() < end, "git commit did not take its lock"
            time.sleep(0.05)
        yield repo, publisher, git, lock
    finally:
        if git.poll() is None:
            _stop(git)


def test_a_git_command_of_the_users_running_now_keeps_its_lock_and_the_publish_names_it(
        live_git: tuple[Path, LocalGitPublisher, subprocess.Popen[bytes], Path]) -> None:
    repo, publisher, git, lock = live_git
    before = snapshot(repo)
    with pytest.raises(PublishError) as refused:
        publisher.publish(release("v2"))
    message = str(refused.value)
    assert str(lock) in message and f"pid {git.pid}" in message and "publish again" in message, message
    assert lock.exists() and git.poll() is None  # the user's command is left to finish
    assert snapshot(repo) == before and publisher.published_versions() == ["v1"]
    _stop(git)  # what the message asks: let it finish (here: stop it), then publish again
    assert not lock.exists()
    publisher.publish(release("v2"))
    assert publisher.published_versions() == ["v1", "v2"]


@pytest.mark.parametrize("lock", ["HEAD.lock", "refs/tags/v2.lock"])
def test_a_lock_a_process_holds_open_is_left_alone(tmp_path: Path, lock: str) -> None:
    repo, publisher = _published(tmp_path)
    path = repo / ".git" / lock
    with path.open("wb") as handle:  # a writer outside the repository (say, `git -C` from elsewhere)
        holder = subprocess.Popen(["sleep", "600"], stdout=handle, start_new_session=True)
    try:
        with pytest.raises(PublishError) as refused:
            publisher.publish(release("v2"))
        assert str(path) in str(refused.value) and f"pid {holder.pid}" in str(refused.value)
        assert path.exists() and publisher.published_versions() == ["v1"]
    finally:
        _stop(holder)
    path.unlink()
    publisher.publish(release("v2"))
    assert publisher.published_versions() == ["v1", "v2"]


def test_a_fresh_lock_nobody_visible_holds_and_no_publish_left_stops_the_publish_with_what_to_do(
        tmp_path: Path) -> None:
    # Another user's git (whose processes cannot be inspected) may hold it: only its owner knows.
    repo, publisher = _published(tmp_path)
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    with pytest.raises(PublishError) as refused:
        publisher.publish(release("v2"))
    message = str(refused.value)
    assert str(lock) in message and "delete it" in message and "publish again" in message, message
    assert lock.exists() and publisher.published_versions() == ["v1"]
    lock.unlink()
    publisher.publish(release("v2"))
    assert publisher.published_versions() == ["v1", "v2"]


def test_an_old_lock_nobody_holds_is_removed_on_its_own(tmp_path: Path) -> None:
    repo, publisher = _published(tmp_path)
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    hour_ago = time.time() - 3600
    os.utime(lock, (hour_ago, hour_ago))
    publisher.publish(release("v2"))
    assert not lock.exists() and publisher.published_versions() == ["v1", "v2"]


def test_a_lock_dated_in_the_future_is_told_as_such_not_as_made_a_negative_time_ago(tmp_path: Path) -> None:
    # The clock was set back (NTP, a resumed VM) after git made it: "made -7200 s ago ... a lock older than 10
    # minutes is removed on its own", which it never would be.
    repo, publisher = _published(tmp_path)
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    later = time.time() + 7200
    os.utime(lock, (later, later))
    with pytest.raises(PublishError) as refused:
        publisher.publish(release("v2"))
    message = str(refused.value)
    assert str(lock) in message and "in the future" in message and "delete it" in message, message
    assert "s ago" not in message and "removed on its own" not in message, message
    assert lock.exists() and publisher.published_versions() == ["v1"]


def test_a_lock_holder_is_named_without_its_arguments_which_may_hold_credentials(tmp_path: Path) -> None:
    from coworkenv.store._git_locks import git_locks

    git_dir = tmp_path / ".git"
    (git_dir / "refs").mkdir(parents=True)
    lock = git_dir / "index.lock"
    lock.write_text("")
    # A shell holding the lock open for writing, as its git writer does (a reader alone is no holder: faults69), with
    # a token-bearing URL early in its command line.
    holder = subprocess.Popen(["sh", "-c", 'exec 3>>"$1"; echo open; sleep 60', "https://u:s3cr3t@x.invalid", str(lock)],
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        (found,) = git_locks(git_dir, tmp_path)
        named = " ".join(found.holders)
        assert f"pid {holder.pid}" in named and "s3cr3t" not in named and "x.invalid" not in named, named
    finally:
        os.killpg(holder.pid, signal.SIGKILL)  # the shell and its sleep
        holder.wait()
