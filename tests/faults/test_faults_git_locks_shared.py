"""Fault corpus, git's lock files and the publish marker of a local dataset repository on a network file system
(NFS, SMB, sshfs, 9p: WSL's Windows drives, virtiofs: a VM's host folder) that other machines use too.

A publish removed a git lock file that no process of this machine held when it was over 10 minutes old, and every
lock file when it found the marker of an interrupted publish (`.git/coworkenv-publishing`). Both were told from
this machine's /proc alone: on a shared file system a git command of another machine (a `git commit` waiting for
its editor holds `index.lock` the whole time) had its lock deleted under it, and a publish running on another
machine (the folder's lock, a `flock`, does not reach other machines: NFS keeps a folder's flock on the client) was
taken for an interrupted one: its lock files removed and its half-written version put back under it. Now a lock
file there is never removed for its age, and a marker that names another machine (the marker names its machine and
process now) stops the publish before anything is touched, naming the machine and what to do; on a local file system
nothing changes (a container restarted under another host name still recovers its own killed publish).

No network file system can be mounted here: the mount table the product reads (`/proc/self/mountinfo`) is replaced
by one that mounts the test's folder as `nfs4`."""

from __future__ import annotations

import os
import shutil
import socket
import time
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import mounted_as, snapshot, version_folders

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights-00001.bin")


@pytest.fixture(scope="module")
def published_v1(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    repo = tmp_path_factory.mktemp("published") / "hub"
    LocalGitPublisher(repo).publish_folder(folders["v1"], "v1", "# v1\n")
    return repo


class _Publisher:
    """A repository holding v1 (a copy of the module's), and the publish of v2 into it."""

    def __init__(self, repo: Path, folders: dict[str, Path]) -> None:
        self.repo, self._folders = repo, folders

    def publish_v2(self) -> None:
        LocalGitPublisher(self.repo).publish_folder(self._folders["v2"], "v2", "# v2\n")

    def published_versions(self) -> list[str]:
        return LocalGitPublisher(self.repo).published_versions()


def _published(tmp_path: Path, published_v1: Path, folders: dict[str, Path]) -> tuple[Path, _Publisher]:
    repo = tmp_path / "hub"
    shutil.copytree(published_v1, repo, symlinks=True)
    return repo, _Publisher(repo, folders)


def _half_written(repo: Path, marker: str) -> tuple[Path, Path]:
    """What a publish on another machine has made so far: its marker, git's index.lock (`git add` running) and a new
    file of its version in the folder."""
    (repo / ".git" / "coworkenv-publishing").write_text(marker)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"DIRC")
    new = repo / "weights-00002.bin"
    new.write_bytes(b"being written by the other machine's publish")
    return lock, new


def test_an_old_lock_on_a_network_file_system_is_not_removed_for_its_age(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_v1: Path, folders: dict[str, Path]) -> None:
    repo, publisher = _published(tmp_path, published_v1, folders)
    mounted_as(monkeypatch, tmp_path, "nfs4")
    lock = repo / ".git" / "index.lock"
    lock.write_text("")  # another machine's `git commit`, waiting for its editor for 20 minutes
    twenty_minutes_ago = time.time() - 1200
    os.utime(lock, (twenty_minutes_ago, twenty_minutes_ago))
    before = snapshot(repo)
    with pytest.raises(PublishError) as refused:
        publisher.publish_v2()
    told = str(refused.value)
    assert str(lock) in told and "network file system (nfs4)" in told and "other machines" in told, told
    assert "delete it and publish again" in told and "nothing was touched" in told
    assert lock.exists() and snapshot(repo) == before and publisher.published_versions() == ["v1"]
    lock.unlink()  # what the message says, once no git runs there
    publisher.publish_v2()
    assert publisher.published_versions() == ["v1", "v2"]


def test_a_publish_running_on_another_machine_is_not_taken_for_an_interrupted_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_v1: Path, folders: dict[str, Path]) -> None:
    repo, publisher = _published(tmp_path, published_v1, folders)
    mounted_as(monkeypatch, tmp_path, "nfs4")
    lock, new = _half_written(repo, "gpu-node-7 4242\n")
    before = snapshot(repo)
    with pytest.raises(PublishError) as refused:
        publisher.publish_v2()
    told = str(refused.value)
    assert "a publish on the machine gpu-node-7 (process 4242)" in told and "network file system (nfs4)" in told, told
    assert f"delete {repo / '.git' / 'coworkenv-publishing'}" in told and "nothing was touched" in told
    # The other machine's publish goes on as it was: its lock, its files.
    assert lock.exists() and new.exists() and snapshot(repo) == before
    assert publisher.published_versions() == ["v1"]


@pytest.mark.parametrize(("kind", "host"), [("ext4", "old-container-name"), ("nfs4", "this machine")])
def test_a_publish_killed_on_this_machine_or_on_a_local_disk_is_still_recovered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_v1: Path, folders: dict[str, Path], kind: str,
        host: str) -> None:
    """Regression guard (passes on `main`): a marker of this machine's on a network file system, or one under another
    host name on a local disk (a container started again under a new name, its volume kept), is a killed publish's:
    its lock and half-written files are cleared and the next publish lands."""
    repo, publisher = _published(tmp_path, published_v1, folders)
    mounted_as(monkeypatch, tmp_path, kind)
    lock, new = _half_written(repo, f"{socket.gethostname() if host == 'this machine' else host} 4242\n")
    publisher.publish_v2()
    assert not lock.exists() and not new.exists()
    assert publisher.published_versions() == ["v1", "v2"]
    assert not (repo / ".git" / "coworkenv-publishing").exists()
