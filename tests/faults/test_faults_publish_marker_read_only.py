"""Fault corpus, the dataset repository's disk remounted read-only (ext4's `errors=remount-ro` after a disk error, an
administrator's `mount -o remount,ro`) just after a publish committed and tagged its version, before it removed its
marker `.git/coworkenv-publishing`.

The marker's removal failing was told as the publish failing: "cannot publish v2 into ...: Read-only file system;
...; the folder keeps its last version", of a version published, committed and tagged (readers of the folder had it),
and the caller (a pipeline step, a script) retried or gave up on it. Now the publish returns its version and warns that
the marker is left: the next publish, once the disk is writable again, checks the folder as after an interrupted one
and finds the version there.

On `main` the case failed: a PublishError claiming the last version was kept, with v2 tagged."""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path

import pytest

from tests.faults.harness import copied_repo, git_quiet, publish_version, published_once, version_folders


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


def test_a_disk_remounted_read_only_after_the_versions_tag_is_no_failed_publish(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path],
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    repo = copied_repo(published_once(tmp_path_factory, folders), tmp_path)
    marker = repo / ".git" / "coworkenv-publishing"
    unlink = Path.unlink

    def read_only_once_tagged(path: Path, missing_ok: bool = False) -> None:
        if path == marker:  # the first write after the version's refs moved
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        unlink(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", read_only_once_tagged)
    with caplog.at_level(logging.WARNING, logger="coworkenv.store._local_git"):
        result = publish_version(repo, folders, "v2")
    assert result.tag == "v2"
    assert git_quiet(repo, "tag", "--list").split() == ["v1", "v2"]
    assert (repo / "weights.bin").read_text() == "v2 weights\n"
    told = caplog.text
    assert str(marker) in told and "read-only" in told.lower() and "next publish" in told, told
    monkeypatch.undo()  # writable again
    assert marker.exists()
    again = publish_version(repo, folders, "v2")
    assert again.tag == "v2" and again.revision == result.revision
    assert git_quiet(repo, "tag", "--list").split() == ["v1", "v2"] and not marker.exists()
