"""Fault corpus, a git lock file that a publish would remove (left by an interrupted publish, or ten minutes old),
held open only for reading by a program that is not its writer: a backup agent copying the repository, an antivirus
scanner or a file indexer reading each new file, seen by this machine's /proc or not (another container).

Any open descriptor counted as a git at work: the /proc scan listed the reader as the lock's holder, and the kernel's
test for a hidden holder (a write lease, refused while any other descriptor is open) said the same. Every publish
stopped ("is in use by ..., a git command working in ... now; let it finish") for as long as the reader kept the file
open, though no git held the lock. A git writes its lock through a descriptor open for writing: only such a holder
keeps the lock now (the descriptor's flags in /proc; for a hidden process, a read lease, which the kernel refuses
only while the file is open for writing somewhere). The reader keeps its descriptor; nothing of its is lost.

On `main` each of the three cases was refused; the guard (a hidden git's lock held open for writing, read by a scanner
too) is refused on both."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coworkenv.store import PublishError, _git_locks
from tests.faults.harness import copied_repo, git_quiet, publish_version, published_once, version_folders

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")

# A program reading a file it found (a backup agent, an antivirus scanner): open for reading until told to stop.
_READER = """
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.read(fd, 1 << 16)
print("reading", flush=True)
sys.stdin.readline()
os.close(fd)
"""


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    return published_once(tmp_path_factory, folders)


def _reading(path: Path) -> subprocess.Popen[str]:
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert reader.stdout is not None and reader.stdout.readline().strip() == "reading"
    return reader


def _hidden(monkeypatch: pytest.MonkeyPatch, *pids: int) -> None:
    """The processes `pids` run in another PID namespace: this machine's /proc scan does not list them."""
    seen = _git_locks._holders
    monkeypatch.setattr(_git_locks, "_holders", lambda paths, git_dir, work_tree: {
        path: [who for who in holders if not any(who.startswith(f"pid {pid} ") for pid in pids)]
        for path, holders in seen(paths, git_dir, work_tree).items()})


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        assert process.stdin is not None
        process.stdin.write("done\n")
        process.stdin.flush()
        process.communicate(timeout=20)


# (a publish was interrupted before: its marker is there; the reader is hidden from /proc)
CASES = {
    "after an interrupted publish, a backup seen": (True, False),
    "after an interrupted publish, a scanner in another container": (True, True),
    "an old lock, a scanner in another container": (False, True),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_a_lock_only_read_by_a_backup_or_scanner_does_not_stop_the_publish(
        tmp_path: Path, published: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        case: str) -> None:
    interrupted, hidden = CASES[case]
    repo = copied_repo(published, tmp_path)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes((repo / ".git" / "index").read_bytes()[:100])  # what a git killed while writing it leaves
    if interrupted:
        (repo / ".git" / "coworkenv-publishing").write_text(f"{socket.gethostname()} 4242\n")
        (repo / "weights-00002.bin").write_bytes(b"half of the killed publish's file")
    else:
        twenty_minutes_ago = time.time() - 1200
        os.utime(lock, (twenty_minutes_ago, twenty_minutes_ago))
    reader = _reading(lock)
    try:
        if hidden:
            _hidden(monkeypatch, reader.pid)
        try:
            publish_version(repo, folders, "v2")
        except PublishError as refused:
            pytest.fail(f"a reader of the lock stopped the publish: {refused}")
        assert reader.poll() is None  # nothing was done to the reader; its descriptor is its own
    finally:
        _stop(reader)
    assert reader.returncode == 0
    assert git_quiet(repo, "tag", "--list").split() == ["v1", "v2"]
    assert (repo / "weights.bin").read_text() == "v2 weights\n" and not (repo / "weights-00002.bin").exists()
    assert not lock.exists()


_WRITER = """
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # as git takes a lock
print("held", flush=True)
sys.stdin.readline()
os.close(fd)
os.unlink(sys.argv[1])
"""


def test_guard_a_hidden_gits_lock_read_by_a_scanner_too_is_still_left_to_it(
        tmp_path: Path, published: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    repo = copied_repo(published, tmp_path)
    lock = repo / ".git" / "index.lock"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline().strip() == "held"
    twenty_minutes_ago = time.time() - 1200
    os.utime(lock, (twenty_minutes_ago, twenty_minutes_ago))
    reader = _reading(lock)
    try:
        _hidden(monkeypatch, writer.pid, reader.pid)
        with pytest.raises(PublishError, match="publish again") as refused:
            publish_version(repo, folders, "v2")
        assert str(lock) in str(refused.value)
        assert lock.exists(), "the hidden git's lock was deleted while it wrote it"
    finally:
        _stop(reader)
        _stop(writer)
    assert writer.returncode == 0 and git_quiet(repo, "tag", "--list").split() == ["v1"]
