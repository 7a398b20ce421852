"""Fault corpus, the local dataset repository as a person leaves it between two publishes: files added, edited,
staged or deleted in its folder by hand, and its branch `main` renamed (`git branch -m main master`) or deleted.

The folder is the publisher's output and the next version replaces what it holds, but nothing of anyone's is lost:
changes no publish made go into git's stash (`git stash pop` brings them back), a folder with files and no version
is refused untouched. A missing `main` is made again where HEAD holds every version and only commits of publishes;
otherwise the refusal gives the command that makes it again, and that command works.

Measured on `main` before the fix: every change by hand was dropped for good (untracked files deleted, edits reset)
with a warning blaming "an interrupted publish"; a renamed or deleted `main` stopped every publish with advice to
`git checkout main`, a branch that no longer existed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot
from tests.faults.test_faults_hub_state import _git  # git as a person runs it


def _published(repo: Path, *tags: str) -> LocalGitPublisher:
    publisher = LocalGitPublisher(repo)
    for tag in tags:
        publisher.publish(release(tag))
    return publisher


def _fresh(tmp_path: Path, *tags: str) -> dict[str, str]:
    """What a repository that nobody touched holds after publishing `tags`."""
    _published(tmp_path / "fresh" / "hub", *tags)
    return snapshot(tmp_path / "fresh" / "hub")


def _first_shard(repo: Path) -> Path:
    return sorted((repo / "data").rglob("*.parquet"))[0]


# -- changes by hand in the folder ---------------------------------------------------------------------------------
def _untracked_at_the_top(repo: Path) -> None:
    (repo / "notes.md").write_text("my notes on this version\n")


def _untracked_in_data(repo: Path) -> None:
    (repo / "data" / "sft" / "labels.csv").write_text("env_id,label\nv1-0,good\n")


def _untracked_in_a_new_folder(repo: Path) -> None:
    (repo / "analysis" / "plots").mkdir(parents=True)
    (repo / "analysis" / "plots" / "lengths.txt").write_text("12 14 19\n")


def _data_file_edited(repo: Path) -> None:
    shard = _first_shard(repo)
    shard.write_bytes(shard.read_bytes()[:-200] + b"\0" * 200)


def _card_edited(repo: Path) -> None:
    (repo / "README.md").write_text("# my own card, with the license I chose\n")


def _file_staged(repo: Path) -> None:
    (repo / "LICENSE").write_text("CC-BY-4.0\n")
    _git(repo, "add", "LICENSE")


def _file_deleted(repo: Path) -> None:
    _first_shard(repo).unlink()


CHANGES: dict[str, Callable[[Path], None]] = {
    "untracked-at-the-top": _untracked_at_the_top, "untracked-in-data": _untracked_in_data,
    "untracked-in-a-new-folder": _untracked_in_a_new_folder, "data-file-edited": _data_file_edited,
    "card-edited": _card_edited, "file-staged": _file_staged, "file-deleted": _file_deleted,
}


def _stashed_back(repo: Path, base: str) -> dict[str, str]:
    """The folder as the person left it: `base` checked out and the stash popped (in the repository itself)."""
    assert len(_git(repo, "stash", "list").splitlines()) == 1
    _git(repo, "checkout", "--quiet", "--detach", base)
    _git(repo, "stash", "pop", "--quiet")
    return snapshot(repo)


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_changes_by_hand_in_the_folder_are_kept_in_the_stash_not_dropped(tmp_path: Path, change: str) -> None:
    repo = tmp_path / "hub"
    publisher = _published(repo, "v1")
    CHANGES[change](repo)
    theirs = snapshot(repo)
    publisher.publish(release("v2"))
    assert snapshot(repo) == _fresh(tmp_path, "v1", "v2")  # the version as published, nothing of theirs in it
    assert publisher.published_versions() == ["v1", "v2"]
    assert "LICENSE" not in _git(repo, "ls-tree", "-r", "--name-only", "v2")
    assert _stashed_back(repo, "v1") == theirs  # their folder, byte for byte


def test_changes_made_with_an_older_version_checked_out_are_kept_too(tmp_path: Path) -> None:
    repo = tmp_path / "hub"
    publisher = _published(repo, "v1", "v2")
    _git(repo, "checkout", "--quiet", "v1")
    _untracked_in_data(repo)
    _card_edited(repo)
    theirs = snapshot(repo)
    publisher.publish(release("v3"))
    assert _git(repo, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert snapshot(repo) == _fresh(tmp_path, "v1", "v2", "v3")
    assert _stashed_back(repo, "v1") == theirs


def _checkpoint_published(tmp_path: Path) -> tuple[Path, Path, LocalGitPublisher]:
    """(checkpoint folder, repository, publisher) after a checkpoint's first version, v1."""
    checkpoint = tmp_path / "checkpoint"
    checkpoint.mkdir()
    (checkpoint / "model.safetensors").write_bytes(b"weights")
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    publisher.publish_folder(checkpoint, "v1", "# v1\n")
    return checkpoint, repo, publisher


def test_a_checkpoint_repository_keeps_a_file_added_by_hand(tmp_path: Path) -> None:
    checkpoint, repo, publisher = _checkpoint_published(tmp_path)
    (repo / "eval_notes.md").write_text("scored 0.3 by hand\n")
    theirs = snapshot(repo)
    (checkpoint / "model.safetensors").write_bytes(b"better weights")
    publisher.publish_folder(checkpoint, "v2", "# v2\n")
    assert snapshot(repo) == {"README.md": snapshot(repo)["README.md"],
                              "model.safetensors": snapshot(checkpoint)["model.safetensors"]}
    assert _stashed_back(repo, "v1") == theirs


def test_a_folder_with_files_and_no_version_yet_is_refused_untouched(tmp_path: Path) -> None:
    repo = tmp_path / "hub"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=main")
    (repo / "LICENSE").write_text("CC-BY-4.0\n")
    (repo / "data").mkdir()
    (repo / "data" / "README.txt").write_text("what goes here\n")
    before = snapshot(repo)
    with pytest.raises(PublishError) as refused:
        LocalGitPublisher(repo).publish(release("v1"))
    message = str(refused.value)
    assert str(repo) in message and "LICENSE" in message and "move them out" in message, message
    assert snapshot(repo) == before


def test_a_file_git_ignores_outside_the_data_is_left_as_it_is(tmp_path: Path) -> None:
    """Regression guard: held on `main` too (git's clean leaves ignored files, and a release replaces only its
    card and data/)."""
    repo = tmp_path / "hub"
    publisher = _published(repo, "v1")
    (repo / ".git" / "info" / "exclude").write_text("*.log\n")
    (repo / "publish.log").write_text("my log\n")
    publisher.publish(release("v2"))
    assert (repo / "publish.log").read_text() == "my log\n"
    assert _git(repo, "stash", "list") == ""


# -- branch main renamed or deleted --------------------------------------------------------------------------------
def _renamed(repo: Path) -> None:
    _git(repo, "branch", "-m", "main", "master")


def _deleted_while_detached(repo: Path) -> None:
    _git(repo, "checkout", "--quiet", "--detach", "main")
    _git(repo, "branch", "-D", "main")


def _renamed_after_a_version_published_again(repo: Path) -> None:
    LocalGitPublisher(repo).publish(release("v1"))  # a "Back to v1" commit of the publisher's, untagged
    _git(repo, "branch", "-m", "main", "trunk")


GONE: dict[str, Callable[[Path], None]] = {"renamed": _renamed, "deleted-while-detached": _deleted_while_detached,
                                           "renamed-after-back-to": _renamed_after_a_version_published_again}


@pytest.mark.parametrize("gone", sorted(GONE))
def test_a_missing_main_is_made_again_where_head_holds_every_version(tmp_path: Path, gone: str) -> None:
    repo = tmp_path / "hub"
    publisher = _published(repo, "v1", "v2")
    GONE[gone](repo)
    head = _git(repo, "rev-parse", "HEAD")
    publisher.publish(release("v3"))
    assert _git(repo, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert _git(repo, "rev-parse", "main") == _git(repo, "rev-parse", "v3^{commit}")
    assert _git(repo, "merge-base", "--is-ancestor", head, "main") == ""  # main continues where HEAD was
    assert publisher.published_versions()[-1] == "v3"
    assert snapshot(repo) == _fresh(tmp_path, "v1", "v2", "v3")
    for branch in ("master", "trunk"):
        if branch in _git(repo, "branch", "--format=%(refname:short)").split():
            assert _git(repo, "rev-parse", branch) == head  # the renamed branch is kept as it was


def test_a_checkpoint_repository_with_main_renamed_takes_its_next_version(tmp_path: Path) -> None:
    checkpoint, repo, publisher = _checkpoint_published(tmp_path)
    _renamed(repo)
    publisher.publish_folder(checkpoint, "v2", "# v2\n")
    assert publisher.published_versions() == ["v1", "v2"]


def _their_commit(repo: Path) -> None:
    (repo / "notes.md").write_text("someone's notes\n")
    _git(repo, "add", "notes.md")
    _git(repo, "commit", "--quiet", "-m", "notes")


def _their_commit_on_master(repo: Path) -> tuple[str, str]:
    _renamed(repo)
    _their_commit(repo)
    return "holds 1 commit(s) no publish made", f"`git -C {repo} checkout -b main v2`"


def _their_commit_on_a_detached_head(repo: Path) -> tuple[str, str]:
    _deleted_while_detached(repo)
    _their_commit(repo)
    return "holds 1 commit(s) no publish made", f"`git -C {repo} branch my-work` (keeps that work), then " \
                                                f"`git -C {repo} checkout -b main v2`"


def _deleted_while_an_older_version_is_checked_out(repo: Path) -> tuple[str, str]:
    _git(repo, "checkout", "--quiet", "v1")
    _git(repo, "branch", "-D", "main")
    return "lacks version(s) v2", f"`git -C {repo} branch main v2`"


REFUSED: dict[str, Callable[[Path], tuple[str, str]]] = {
    "their-commit-on-the-renamed-branch": _their_commit_on_master,
    "their-commit-on-a-detached-head": _their_commit_on_a_detached_head,
    "deleted-with-an-older-version-checked-out": _deleted_while_an_older_version_is_checked_out}


@pytest.mark.parametrize("state", sorted(REFUSED))
def test_a_missing_main_that_cannot_be_made_again_is_refused_with_a_command_that_works(tmp_path: Path,
                                                                                      state: str) -> None:
    repo = tmp_path / "hub"
    publisher = _published(repo, "v1", "v2")
    why, advice = REFUSED[state](repo)
    head = _git(repo, "rev-parse", "HEAD")
    (repo / "draft.txt").write_text("not committed yet\n")  # refused before anything is touched, this too
    before = snapshot(repo)
    with pytest.raises(PublishError) as refused:
        publisher.publish(release("v3"))
    message = str(refused.value)
    assert why in message and "missing" in message and advice in message, message
    assert snapshot(repo) == before and _git(repo, "rev-parse", "HEAD") == head  # nothing touched
    for command in advice.split("`")[1::2]:  # what the message asks, as written
        _git(repo, *command.split()[3:])
    publisher.publish(release("v3"))
    assert publisher.published_versions() == ["v1", "v2", "v3"]
    assert _git(repo, "merge-base", "--is-ancestor", "v2", "main") == ""
    assert head in _git(repo, "rev-list", "--all").split()  # their commit is still there
