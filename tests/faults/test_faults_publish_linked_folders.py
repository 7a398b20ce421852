"""Fault corpus, a folder of the local dataset repository replaced by a symbolic link: `data/` (or a folder below it)
moved to a bigger disk and linked back, absolute or relative, before a dataset or a checkpoint is published again.
git keeps a link as a link and never writes or reads past it: the publish stopped in `git stash` with git's "beyond
a symbolic link" and "fix the repository state", naming neither the link nor what to do. Now it is refused before
anything is touched, naming the link, where it leads and the two fixes; the folder behind the link, the repository's
versions and its folder stay as they were, and once the folder is put back the same publish succeeds. A link the
version itself holds (committed as a link), and the whole repository behind a link, publish as before."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot


def _data_moved_absolute(repo: Path, away: Path) -> tuple[Path, Path]:
    shutil.move(repo / "data", away)
    (repo / "data").symlink_to(away)
    return repo / "data", away


def _data_moved_relative(repo: Path, away: Path) -> tuple[Path, Path]:
    shutil.move(repo / "data", away)
    (repo / "data").symlink_to(os.path.relpath(away, repo))
    return repo / "data", away


def _subfolder_moved(repo: Path, away: Path) -> tuple[Path, Path]:
    shutil.move(repo / "data" / "sft", away)
    (repo / "data" / "sft").symlink_to(away)
    return repo / "data" / "sft", away


MOVES: dict[str, Callable[[Path, Path], tuple[Path, Path]]] = {
    "data-absolute": _data_moved_absolute,
    "data-relative": _data_moved_relative,
    "subfolder": _subfolder_moved,
}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("move", list(MOVES))
def test_a_folder_moved_and_linked_back_is_named_and_nothing_is_touched(tmp_path: Path, move: str) -> None:
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    link, away = MOVES[move](repo, tmp_path / "bigger-disk" / "moved")
    (away / "notes.txt").write_text("a file of the user's beside the dataset\n")
    behind, head = snapshot(away), _git(repo, "rev-parse", "HEAD")
    with pytest.raises(PublishError) as refused:
        publisher.publish(release("v2"))
    message = str(refused.value)
    assert f"{link} is a symbolic link to a folder" in message, message
    assert str(away) in message and "rm " in message and "nothing was published" in message, message
    assert "fix the repository state" not in message, message
    assert snapshot(away) == behind  # the folder behind the link: every file, the user's too
    assert link.is_symlink()
    assert _git(repo, "rev-parse", "HEAD") == head and publisher.published_versions() == ["v1"]
    assert _git(repo, "stash", "list") == ""  # nothing of the user's put aside
    # Put back as the message says: the same publish succeeds, the user's file kept in the folder.
    link.unlink()
    shutil.move(away, link)
    assert publisher.publish(release("v2")).tag == "v2"
    assert publisher.published_versions() == ["v1", "v2"]


def test_a_checkpoint_published_over_a_linked_folder_is_refused_the_same_way(tmp_path: Path) -> None:
    repo, checkpoint = tmp_path / "repo", tmp_path / "ckpt"
    (checkpoint / "weights").mkdir(parents=True)
    (checkpoint / "weights" / "model.bin").write_bytes(b"weights one")
    publisher = LocalGitPublisher(repo)
    publisher.publish_folder(checkpoint, "step-1", "# step-1\n")
    shutil.move(repo / "weights", tmp_path / "big")
    (repo / "weights").symlink_to(tmp_path / "big")
    (checkpoint / "weights" / "model.bin").write_bytes(b"weights two")
    with pytest.raises(PublishError, match="weights is a symbolic link to a folder"):
        publisher.publish_folder(checkpoint, "step-2", "# step-2\n")
    assert (tmp_path / "big" / "model.bin").read_bytes() == b"weights one"
    assert publisher.published_versions() == ["step-1"]


def test_a_link_the_version_holds_and_a_linked_repository_publish_as_before(tmp_path: Path) -> None:
    real = tmp_path / "bigger-disk" / "repo"
    publisher = LocalGitPublisher(real)
    publisher.publish(release("v1"))
    (real / "latest").symlink_to("data")  # a person's link, committed as a link
    _git(real, "add", "latest")
    _git(real, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-q", "-m", "a link to the data")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "keep.txt").write_text("kept\n")
    (real / "scratch").symlink_to(scratch)  # a new link, no file of the repository behind it: kept aside as before
    alias = tmp_path / "repo"
    alias.symlink_to(real)  # the whole repository on another disk, linked
    linked = LocalGitPublisher(alias)
    assert linked.publish(release("v2")).tag == "v2"
    assert linked.published_versions() == ["v1", "v2"]
    assert (real / "latest").is_symlink()
    assert (scratch / "keep.txt").read_text() == "kept\n"
