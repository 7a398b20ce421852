"""Fault corpus, a local dataset repository whose `.git` is a file (`gitdir: PATH`): its git directory moved away
with `git init --separate-git-dir` or laid out as a submodule's (both are read and published into as they are), a
linked `git worktree`, or a pointer that is dangling, empty or garbage (both refused, naming the file and what to
do, with nothing touched). Before, such a repository listed no versions and was called "not a git repository"."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], env=GIT_ENV, capture_output=True, text=True,
                          check=True).stdout


def _separate(repo: Path, away: Path) -> None:
    _git(repo, "init", "--quiet", "--separate-git-dir", str(away / "dataset.git"))  # absolute pointer


def _submodule_layout(repo: Path, away: Path) -> None:
    target = repo.parent / "modules" / "dataset"
    target.parent.mkdir()
    shutil.move(repo / ".git", target)
    (repo / ".git").write_text("gitdir: ../modules/dataset\n")  # relative to the folder, as git writes it


LAYOUTS: dict[str, Callable[[Path, Path], None]] = {"separate git dir": _separate, "submodule": _submodule_layout}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_repository_whose_git_dir_is_elsewhere_is_read_and_published_into(tmp_path: Path, layout: str) -> None:
    repo = tmp_path / "dataset"
    LocalGitPublisher(repo).publish(release("v1"))
    LAYOUTS[layout](repo, tmp_path)
    pointer = (repo / ".git").read_text()
    publisher = LocalGitPublisher(repo)
    assert publisher.published_versions() == ["v1"]
    publisher.publish(release("v2"))
    shutil.copytree(repo / "data", tmp_path / "checkpoint")
    result = publisher.publish_folder(tmp_path / "checkpoint", "v3", "# v3\n")  # replaces every file it had
    assert publisher.published_versions() == ["v1", "v2", "v3"]
    assert (repo / ".git").read_text() == pointer  # never taken for a file of a version
    assert _git(repo, "status", "--porcelain") == ""
    assert ".git" not in result.files and sorted(snapshot(repo)) == sorted(result.files)


def test_a_linked_worktree_is_refused_naming_the_repository_it_belongs_to(tmp_path: Path) -> None:
    main = tmp_path / "dataset"
    LocalGitPublisher(main).publish(release("v1"))
    linked = tmp_path / "linked"
    _git(main, "worktree", "add", "--quiet", "-b", "other", str(linked))
    before = (snapshot(main), snapshot(linked), _git(main, "for-each-ref"))
    with pytest.raises(PublishError) as caught:
        LocalGitPublisher(linked).publish(release("v2"))
    message = str(caught.value)
    assert f"{linked} is a linked worktree" in message and f"publish into {main}" in message, message
    assert (snapshot(main), snapshot(linked), _git(main, "for-each-ref")) == before


@pytest.mark.parametrize(("pointer", "says"), [("gitdir: ../gone.git\n", "which is not a git directory"),
                                               ("", "does not point to a git directory"),
                                               ("gitdir:\n", "does not point to a git directory"),
                                               ("\x00\xff garbage\n", "does not point to a git directory")])
def test_a_git_file_pointing_nowhere_is_refused_naming_it(tmp_path: Path, pointer: str, says: str) -> None:
    repo = tmp_path / "dataset"
    LocalGitPublisher(repo).publish(release("v1"))
    shutil.move(repo / ".git", tmp_path / "kept.git")  # what the pointer should have named
    (repo / ".git").write_text(pointer, encoding="latin-1")
    before = snapshot(repo)
    publisher = LocalGitPublisher(repo)
    for attempt in (publisher.published_versions, lambda: publisher.publish(release("v2"))):
        with pytest.raises(PublishError) as caught:
            attempt()
        message = str(caught.value)
        assert f"{repo / '.git'}" in message and says in message and "gitdir:" in message, message
    assert snapshot(repo) == before and (repo / ".git").read_text(encoding="latin-1") == pointer
