"""Fault corpus, two machines publishing into one local dataset repository on a network file system in the same
instant (two training nodes sharing an NFS home, each ending its run with a publish).

Every publish holds a lock on the repository's folder (`flock`), but a network file system keeps a folder's flock on
the client (NFS takes none to its server), and the publish marker that faults58 made name its machine is written only
once a publish has begun: two publishes that began together both went on, git's `index.lock` failed one of them, and
its restore put the folder back on the last version under the other's half-written one. Now, where the repository is
on a network file system, a publish also takes a POSIX record lock on `.git/coworkenv-publish-lock`, which the server
keeps for every machine; the second one waits for the first, saying so.

No network file system can be mounted here: the mount table the product reads is replaced by one that mounts the
test's folder as `nfs4`, and the other machine is a process holding the record lock, which is what the server shows
this machine of a lock taken there."""

from __future__ import annotations

import errno
import fcntl
import logging
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher
from tests.faults.harness import mounted_as, version_folders

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")

LOCK = "coworkenv-publish-lock"
# The other machine's publish: takes the record lock, says so, holds it until told to end (a line on stdin).
HOLDER = ("import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\nfcntl.lockf(fd, fcntl.LOCK_EX)\n"
          "print('held', flush=True)\nsys.stdin.readline()\n")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights-00001.bin")


@pytest.fixture(scope="module")
def published_v1(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    repo = tmp_path_factory.mktemp("published") / "hub"
    LocalGitPublisher(repo).publish_folder(folders["v1"], "v1", "# v1\n")
    return repo


def _repo(tmp_path: Path, published_v1: Path) -> Path:
    repo = tmp_path / "shared" / "hub"
    shutil.copytree(published_v1, repo, symlinks=True)
    return repo


class _Waiting(logging.Handler):
    """Set once the publish says it waits for another one."""

    def __init__(self) -> None:
        super().__init__()
        self.said = threading.Event()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        if "waiting for it to end" in record.getMessage():
            self.said.set()


def test_a_publish_waits_for_one_that_another_machine_began_in_the_same_instant(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, published_v1: Path, folders: dict[str, Path]) -> None:
    mounted_as(monkeypatch, tmp_path, "nfs4")
    repo = _repo(tmp_path, published_v1)
    other = subprocess.Popen([sys.executable, "-c", HOLDER, str(repo / ".git" / LOCK)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        heard = _Waiting()
        logging.getLogger("coworkenv.store._local_git").addHandler(heard)
        failed: list[BaseException] = []

        def publish() -> None:
            try:
                LocalGitPublisher(repo).publish_folder(folders["v2"], "v2", "# v2\n")
            except BaseException as error:
                failed.append(error)

        here = threading.Thread(target=publish, daemon=True)
        here.start()
        while not heard.said.wait(0.05) and here.is_alive():
            pass
        assert heard.said.is_set(), (f"published while another machine's publish held the repository's lock: "
                                     f"{failed or heard.lines}")
        said = next(line for line in heard.lines if "waiting for it to end" in line)
        assert str(repo) in said and "nfs4" in said and "another machine" in said, said
        assert here.is_alive()
        assert not (repo / ".git" / "coworkenv-publishing").exists(), "began writing while the other one ran"
        assert (repo / "weights-00001.bin").read_text() == "v1 weights\n"
        assert other.stdin is not None
        other.stdin.write("\n")
        other.stdin.flush()
        here.join(60)
        assert not here.is_alive() and not failed, failed
    finally:
        logging.getLogger("coworkenv.store._local_git").handlers[:] = [
            handler for handler in logging.getLogger("coworkenv.store._local_git").handlers
            if not isinstance(handler, _Waiting)]
        other.kill()
        other.wait()
    assert (repo / "weights-00001.bin").read_text() == "v2 weights\n"
    assert LocalGitPublisher(repo).published_versions() == ["v1", "v2"]


def test_a_shared_repository_mounted_without_locks_still_publishes_and_says_so(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, published_v1: Path, folders: dict[str, Path],
        caplog: pytest.LogCaptureFixture) -> None:
    """An NFS mount with `nolock` (no lock manager: ENOLCK): the publish goes on as before, and says that another
    machine's publish at the same time is not kept out."""
    mounted_as(monkeypatch, tmp_path, "nfs4")
    repo = _repo(tmp_path, published_v1)

    def no_locks(fd: int, cmd: int, *args: object) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "lockf", no_locks)
    with caplog.at_level(logging.WARNING, logger="coworkenv.store._local_git"):
        LocalGitPublisher(repo).publish_folder(folders["v2"], "v2", "# v2\n")
    assert LocalGitPublisher(repo).published_versions() == ["v1", "v2"]
    assert any("mounted without locks" in line and "No locks available" in line for line in caplog.messages), \
        caplog.messages


def test_on_a_local_disk_nothing_is_locked_beyond_the_folder(
        tmp_path: Path, published_v1: Path, folders: dict[str, Path]) -> None:
    """Regression guard (passes on `main`): a repository on a local disk gets no record lock and no new file in its
    git directory (two machines cannot share it; a publish on this one is kept out by the folder's lock)."""
    repo = _repo(tmp_path, published_v1)
    LocalGitPublisher(repo).publish_folder(folders["v2"], "v2", "# v2\n")
    assert not (repo / ".git" / LOCK).exists()
    assert LocalGitPublisher(repo).published_versions() == ["v1", "v2"]
