"""Fault corpus, a lock file of another git's made in the dataset repository while a publish's git command waits on a
stalled clean filter, by a git this machine's /proc does not show: a user's own `git` in another container or PID
namespace bind-mounting the repository, or another machine's on a network file system.

A watched git command (`run_watched`) that stalls is stopped, and the lock files it left are removed. Which were its
own was told by date alone: every lock dated at or after the command's start that no visible process held. A lock the
hidden git took meanwhile (a ref it is updating, the config it is writing) matched, and was deleted under it: its
update then failed or was lost (git renames its lock over the file it replaces), and for that while a second git could
take the same lock and write at once. Now only the lock files the stopped command's own processes held (by device
and inode, read from their open files while they are frozen) are removed; any other is left to its writer.

On `main` the two publish cases lost the other git's write (its lock deleted while it held it, its commit failed),
and the last case's lock of another process was deleted."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from coworkenv.store import PublishError, _git_locks
from tests.faults.harness import (
    copied_repo,
    filter_x,
    finish_outsider,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

LIMIT_S = "1"


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def repo(tmp_path: Path, published: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", LIMIT_S)
    return copied_repo(published, tmp_path)


def _ref_update(repo: Path) -> tuple[subprocess.Popen[str], Path, str]:
    """A real git holding `refs/heads/topic.lock`: a prepared ref transaction that commits on its next line."""
    head = git_quiet(repo, "rev-parse", "HEAD").strip()
    git = subprocess.Popen(["git", "update-ref", "--stdin"], cwd=repo, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert git.stdin is not None and git.stdout is not None
    git.stdin.write(f"start\nupdate refs/heads/topic {head}\nprepare\n")
    git.stdin.flush()
    assert git.stdout.readline().strip() == "start: ok"
    assert git.stdout.readline().strip() == "prepare: ok"
    return git, repo / ".git" / "refs" / "heads" / "topic.lock", head


_CONFIG_WRITER = """
import os, sys
lock = os.path.join(sys.argv[1], "config.lock")
fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # as git takes a lock
with open(os.path.join(sys.argv[1], "config")) as old:
    os.write(fd, (old.read() + "[user]\\n\\tname = someone\\n").encode())
print("held", flush=True)
sys.stdin.readline()
os.close(fd)
os.rename(lock, os.path.join(sys.argv[1], "config"))
"""


def _config_write(repo: Path) -> tuple[subprocess.Popen[str], Path, str]:
    """A writer of the repository's config the way git writes it: `config.lock` made exclusively, renamed over."""
    writer = subprocess.Popen([sys.executable, "-c", _CONFIG_WRITER, str(repo / ".git")], cwd=repo,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline().strip() == "held"
    return writer, repo / ".git" / "config.lock", "someone"


OUTSIDERS = {"a ref update": _ref_update, "a config write": _config_write}


@pytest.mark.parametrize("outsider", list(OUTSIDERS), ids=list(OUTSIDERS))
def test_a_lock_an_unseen_git_takes_during_a_stalled_filter_is_left_to_it(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, outsider: str) -> None:
    ready = tmp_path / "filter-started"
    filter_x(repo, clean=f"sh -c 'cat >/dev/null; touch {ready}; exec sleep 30'")
    hidden: list[int] = []
    seen = _git_locks._holders

    def holders_in_another_namespace(paths: set[str], git_dir: Path, work_tree: Path) -> dict[str, list[str]]:
        # The other git runs in a PID namespace of its own: this machine's /proc scan does not list it.
        found = seen(paths, git_dir, work_tree)
        return {path: [who for who in holders if not any(who.startswith(f"pid {pid} ") for pid in hidden)]
                for path, holders in found.items()}

    monkeypatch.setattr(_git_locks, "_holders", holders_in_another_namespace)
    outcome: list[object] = []

    def publish() -> None:
        try:
            outcome.append(publish_version(repo, folders, "v2"))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=publish, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not ready.exists():
        assert time.monotonic() < deadline and thread.is_alive(), f"the filter never ran: {outcome}"
        time.sleep(0.02)
    other, lock, wrote = OUTSIDERS[outsider](repo)  # taken while the publish's git waits on its filter
    hidden.append(other.pid)
    try:
        thread.join(20)
        assert not thread.is_alive(), "the stalled filter was never stopped"
        assert isinstance(outcome[0], PublishError), outcome[0]
        assert lock.exists(), f"{lock.name}, the other git's, was deleted while it held it"
        finish_outsider(other, "commit\n")
    finally:
        if other.poll() is None:
            other.kill()
            other.wait()
    if outsider == "a ref update":
        assert git_quiet(repo, "rev-parse", "refs/heads/topic").strip() == wrote
    else:
        assert git_quiet(repo, "config", "user.name").strip() == wrote
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"
    assert not (repo / ".git" / "index.lock").exists(), "the publish's own lock was left"


_STUCK_GIT = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stopped only by SIGKILL: its lock is left, as a git killed leaves it
fd = os.open(os.path.join(sys.argv[1], "index.lock"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
open(os.path.join(sys.argv[1], "took"), "w").close()
time.sleep(60)
"""


def test_the_stopped_commands_own_lock_is_removed_and_no_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The class, without a publish: a stalled command killed holding `index.lock` (made after it began, as the other
    git's lock is) leaves it; that one is removed, the one another process made meanwhile is not."""
    from coworkenv.store import _git_hook
    from coworkenv.store._git_filter import Stopped, run_watched

    monkeypatch.setattr(_git_hook, "_STOP_GRACE_S", 0.1)
    git_dir = tmp_path / ".git"
    (git_dir / "refs" / "heads").mkdir(parents=True)
    theirs = git_dir / "refs" / "heads" / "main.lock"

    def other_git() -> None:  # takes its lock once the command has taken its own, holding it in no visible process
        deadline = time.monotonic() + 20
        while not (git_dir / "took").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        theirs.write_text("0" * 40 + "\n")

    thread = threading.Thread(target=other_git, daemon=True)
    thread.start()
    ran = run_watched([sys.executable, "-c", _STUCK_GIT, str(git_dir)], tmp_path, dict(os.environ), None, 0.3,
                      git_dir)
    thread.join(20)
    assert isinstance(ran, Stopped)
    assert not (git_dir / "index.lock").exists(), "the killed command's own lock was left"
    assert theirs.exists(), "another git's lock, made after the command began, was deleted"
