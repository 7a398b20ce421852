"""Fault corpus, a lock file of another git's found by the publish that follows an interrupted one (its marker
`.git/coworkenv-publishing` left by a kill -9, an OOM kill, a power loss), taken by a git this machine's /proc does
not show: a user's own `git` in another container or PID namespace bind-mounting the repository.

After an interrupted publish, the next one removed every lock file no visible process held, however new: the
interrupted publish's git could have left any of them. A lock the hidden git took since (a ref it updates, the config
it writes, the index it is staging into) matched and was deleted under it: its write was lost, and for that while a
second git could take the same lock and write at once. A lock is now taken for the interrupted publish's only where
that publish could have left it: a file a publish's git commands lock (the index, HEAD, packed-refs, its branch, a
tag, the stash), dated no later than shortly after its last sign of life (the publish touches its marker while it
runs), and open in no process of this kernel, seen or not (a write lease can be taken on it). Any other is left to its
writer, and the publish stops naming it, before touching anything.

On `main` each case lost the other git's write (its lock deleted while it held it)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import PublishError, _git_locks
from tests.faults.harness import (
    copied_repo,
    finish_outsider,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    return published_once(tmp_path_factory, folders)


def _ref_update(repo: Path, ref: str) -> tuple[subprocess.Popen[str], Path, Callable[[], bool]]:
    """A real git holding `REF.lock` (its descriptor closed, as git's ref locks are once written): a prepared ref
    transaction moving REF to an empty commit of its own, which it commits on its next line."""
    head = git_quiet(repo, "rev-parse", "HEAD").strip()
    tree = git_quiet(repo, "rev-parse", "HEAD^{tree}").strip()
    commit = subprocess.run(["git", "-C", str(repo), "commit-tree", tree, "-p", head, "-m", "the user's own"],
                            env={**os.environ, "GIT_AUTHOR_NAME": "someone", "GIT_AUTHOR_EMAIL": "someone@localhost",
                                 "GIT_COMMITTER_NAME": "someone", "GIT_COMMITTER_EMAIL": "someone@localhost"},
                            check=True, capture_output=True, text=True).stdout.strip()
    git = subprocess.Popen(["git", "update-ref", "--stdin"], cwd=repo, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert git.stdin is not None and git.stdout is not None
    git.stdin.write(f"start\nupdate {ref} {commit}\nprepare\n")
    git.stdin.flush()
    assert git.stdout.readline().strip() == "start: ok"
    assert git.stdout.readline().strip() == "prepare: ok"
    return git, repo / ".git" / f"{ref}.lock", lambda: git_quiet(repo, "rev-parse", ref).strip() == commit


_LOCK_WRITER = """
import os, sys
git_dir, name, line = sys.argv[1:4]
lock = os.path.join(git_dir, name + ".lock")
fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # as git takes a lock, open while it writes
with open(os.path.join(git_dir, name), "rb") as old:
    os.write(fd, old.read() + line.encode())
print("held", flush=True)
sys.stdin.readline()
os.close(fd)
os.rename(lock, os.path.join(git_dir, name))
"""


def _lock_writer(repo: Path, name: str) -> tuple[subprocess.Popen[str], Path, Callable[[], bool]]:
    """A writer of `.git/NAME` the way git writes a file: `NAME.lock` made exclusively and held open while it is
    written, then renamed over NAME."""
    line = "[user]\n\tname = someone\n" if name == "config" else ""
    writer = subprocess.Popen([sys.executable, "-c", _LOCK_WRITER, str(repo / ".git"), name, line], cwd=repo,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline().strip() == "held"
    before = (repo / ".git" / name).stat().st_ino
    return writer, repo / ".git" / f"{name}.lock", lambda: (repo / ".git" / name).stat().st_ino != before


# (how the other git takes its lock, how long before it the interrupted publish last showed a sign of life)
OUTSIDERS: dict[str, tuple[Callable[[Path], tuple[subprocess.Popen[str], Path, Callable[[], bool]]], float]] = {
    # A ref a publish never locks: whenever it was taken, it is not the interrupted publish's.
    "a topic branch's update": (lambda repo: _ref_update(repo, "refs/heads/topic"), 0.0),
    # The config, which a publish never writes (its `git init` runs before its marker), held open.
    "a config write": (lambda repo: _lock_writer(repo, "config"), 0.0),
    # The branch a publish moves, locked two minutes after the interrupted publish's last sign of life.
    "the branch's update, after": (lambda repo: _ref_update(repo, "refs/heads/main"), 120.0),
    # The branch a publish moves, locked at once after the interrupted publish died (within LEFT_WITHIN_S), its
    # descriptor closed: the lock names a new commit of another identity that no ref holds, which a publish never
    # moves a ref to (faults69; on main the lock was taken for the publish's and the other git's write lost).
    "the branch's update to a new commit, at once": (lambda repo: _ref_update(repo, "refs/heads/main"), 0.0),
    # The index a publish stages into, held open by its writer just after the interrupted publish died.
    "the index's write, held open": (lambda repo: _lock_writer(repo, "index"), 0.0),
}


@pytest.mark.parametrize("outsider", list(OUTSIDERS), ids=list(OUTSIDERS))
def test_a_lock_an_unseen_git_takes_after_a_publish_was_interrupted_is_left_to_it(
        tmp_path: Path, published: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        outsider: str) -> None:
    repo = copied_repo(published, tmp_path)
    # What a publish killed on this machine leaves: its marker, and a file of its version half written.
    marker = repo / ".git" / "coworkenv-publishing"
    marker.write_text(f"{socket.gethostname()} 4242\n")
    (repo / "weights-00002.bin").write_bytes(b"half of the killed publish's file")
    take, last_alive_s = OUTSIDERS[outsider]
    then = time.time() - last_alive_s
    os.utime(marker, (then, then))
    other, lock, wrote = take(repo)  # after the kill, before the next publish
    theirs = sorted((repo / ".git").rglob("*.lock"))  # a ref's update through HEAD locks HEAD too
    assert lock in theirs
    hidden = other.pid
    seen = _git_locks._holders

    def holders_in_another_namespace(paths: set[str], git_dir: Path, work_tree: Path) -> dict[str, list[str]]:
        # The other git runs in a PID namespace of its own: this machine's /proc scan does not list it.
        found = seen(paths, git_dir, work_tree)
        return {path: [who for who in holders if not who.startswith(f"pid {hidden} ")]
                for path, holders in found.items()}

    monkeypatch.setattr(_git_locks, "_holders", holders_in_another_namespace)
    try:
        with pytest.raises(PublishError) as refused:
            publish_version(repo, folders, "v2")
        assert any(str(path) in str(refused.value) for path in theirs), refused.value
        assert "publish again" in str(refused.value), refused.value
        for path in theirs:
            assert path.exists(), f"{path.name}, the other git's, was deleted while it held it"
        finish_outsider(other, "commit\n")
    finally:
        if other.poll() is None:
            other.kill()
            other.wait()
    assert wrote(), "the other git's write was lost"
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    # Once it is done, the next publish recovers the interrupted one and lands.
    publish_version(repo, folders, "v2")
    assert git_quiet(repo, "tag", "--list").split() == ["v1", "v2"]
    assert not marker.exists() and not (repo / "weights-00002.bin").exists()
    assert (repo / "weights.bin").read_text() == "v2 weights\n"


def test_an_old_lock_an_unseen_git_holds_open_is_not_removed_for_its_age(
        tmp_path: Path, published: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """No publish was interrupted: a lock no visible process holds is removed once it is ten minutes old. A `git add`
    in another container, staging a large dataset through its LFS filter for twenty minutes, holds `index.lock` open
    all along, unseen by this machine's /proc: it was deleted for its age and its commit lost."""
    repo = copied_repo(published, tmp_path)
    other, lock, wrote = _lock_writer(repo, "index")
    twenty_minutes_ago = time.time() - 1200
    os.utime(lock, (twenty_minutes_ago, twenty_minutes_ago))
    seen = _git_locks._holders
    monkeypatch.setattr(_git_locks, "_holders", lambda paths, git_dir, work_tree: {
        path: [who for who in holders if not who.startswith(f"pid {other.pid} ")]
        for path, holders in seen(paths, git_dir, work_tree).items()})
    try:
        with pytest.raises(PublishError) as refused:
            publish_version(repo, folders, "v2")
        assert str(lock) in str(refused.value) and "publish again" in str(refused.value), refused.value
        assert lock.exists(), "the other git's index.lock was deleted for its age while it held it open"
        finish_outsider(other, "done\n")
    finally:
        if other.poll() is None:
            other.kill()
            other.wait()
    assert wrote(), "the other git's write was lost"
    publish_version(repo, folders, "v2")
    assert git_quiet(repo, "tag", "--list").split() == ["v1", "v2"]


_STUCK_GIT = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stopped only by SIGKILL: its lock is left, as a git killed leaves it
fd = os.open(os.path.join(sys.argv[1], "index.lock"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
open(os.path.join(sys.argv[1], "took"), "w").close()
time.sleep(60)
"""


def test_a_watched_command_interrupted_removes_its_own_lock_and_no_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (or a stop signal the CLI turns into one) while a watched git command runs: it is stopped, and the lock
    it leaves (killed after the grace) is removed then, as a stalled command's is, not left to the publish's own
    restore (which then failed on it) and to the next publish (which, the marker gone, refused it for ten minutes);
    another process's lock made meanwhile is left."""
    from coworkenv.store import _git_filter, _git_hook

    monkeypatch.setattr(_git_hook, "_STOP_GRACE_S", 0.1)
    git_dir = tmp_path / ".git"
    (git_dir / "refs" / "heads").mkdir(parents=True)
    theirs = git_dir / "refs" / "heads" / "main.lock"

    def interrupted(*_: object, **__: object) -> None:  # Ctrl-C once the command holds its lock and another git its own
        deadline = time.monotonic() + 20
        while not (git_dir / "took").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        theirs.write_text("0" * 40 + "\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(_git_filter, "_waited", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _git_filter.run_watched([sys.executable, "-c", _STUCK_GIT, str(git_dir)], tmp_path, dict(os.environ), None,
                                60.0, git_dir)
    assert not (git_dir / "index.lock").exists(), "the interrupted command's own lock was left"
    assert theirs.exists(), "another git's lock, made after the command began, was deleted"


def test_a_running_publish_keeps_its_markers_date_at_its_last_sign_of_life(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What sign 2 reads: while a publish runs, its marker is dated again and again, so that a lock its git left when
    it was killed, an hour into a long `git add`, is still dated within LEFT_WITHIN_S of the marker; once it ends, the
    marker is no longer touched."""
    from coworkenv.store import _local_git

    monkeypatch.setattr(_local_git, "ALIVE_EVERY_S", 0.05)
    marker = tmp_path / "coworkenv-publishing"
    marker.write_text("host 1\n")
    long_ago = time.time() - 3600
    os.utime(marker, (long_ago, long_ago))
    with _local_git._kept_alive(marker):
        deadline = time.monotonic() + 20
        while marker.stat().st_mtime < time.time() - 60:
            assert time.monotonic() < deadline, "the marker was never dated again while the publish ran"
            time.sleep(0.02)
    os.utime(marker, (long_ago, long_ago))
    time.sleep(0.2)
    assert marker.stat().st_mtime == long_ago, "the marker was still touched after the publish ended"
