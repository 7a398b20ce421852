"""Fault corpus, the local dataset repository in a state someone else left: a version or another branch checked
out, a commit of someone's own on a detached HEAD, a repository made with another default branch, a card edited by
hand. A publish lands its version on `main` (which readers follow) or stops with one message before touching
anything; it never commits beside `main` and never drops a commit that only HEAD held."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot


def _git(repo: Path, *args: str) -> str:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="someone", GIT_AUTHOR_EMAIL="someone@localhost", GIT_COMMITTER_NAME="someone",
               GIT_COMMITTER_EMAIL="someone@localhost", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _published(tmp_path: Path, *tags: str) -> tuple[Path, LocalGitPublisher]:
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    for tag in tags:
        publisher.publish(release(tag))
    return repo, publisher


def _fresh(tmp_path: Path, *tags: str) -> Path:
    """The folder a repository that nobody touched holds after publishing `tags`."""
    fresh, _ = _published(tmp_path / "fresh", *tags)
    return fresh


@pytest.mark.parametrize("checkout", [["checkout", "--quiet", "v1"], ["checkout", "--quiet", "-b", "look", "v1"]],
                         ids=["detached-at-a-version", "another-branch"])
def test_a_publish_after_an_older_version_was_checked_out_lands_on_main(tmp_path: Path,
                                                                        checkout: list[str]) -> None:
    repo, publisher = _published(tmp_path, "v1", "v2")
    _git(repo, *checkout)
    publisher.publish(release("v3"))
    assert _git(repo, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert _git(repo, "rev-parse", "main") == _git(repo, "rev-parse", "v3^{commit}")
    assert _git(repo, "merge-base", "--is-ancestor", "v2", "main") == ""  # v2 stays in main's history
    assert publisher.published_versions() == ["v1", "v2", "v3"]
    assert snapshot(repo) == snapshot(_fresh(tmp_path, "v1", "v2", "v3"))
    if "look" in checkout:
        assert _git(repo, "rev-parse", "look") == _git(repo, "rev-parse", "v1^{commit}")  # the branch is kept


def test_a_detached_head_holding_someones_commit_stops_the_publish_and_keeps_it(tmp_path: Path) -> None:
    repo, publisher = _published(tmp_path, "v1", "v2")
    _git(repo, "checkout", "--quiet", "v1")
    (repo / "notes.md").write_text("someone's notes\n")
    _git(repo, "add", "notes.md")
    _git(repo, "commit", "--quiet", "-m", "notes")
    theirs = _git(repo, "rev-parse", "HEAD")
    before = snapshot(repo)
    with pytest.raises(PublishError) as refused:
        publisher.publish(release("v3"))
    message = str(refused.value)
    assert str(repo) in message and "detached" in message and theirs[:12] in message, message
    assert f"git -C {repo} checkout main" in message
    assert snapshot(repo) == before and _git(repo, "rev-parse", "HEAD") == theirs  # nothing touched
    assert publisher.published_versions() == ["v1", "v2"]
    _git(repo, "branch", "notes", theirs)  # what the message asks: keep the work, check out main
    _git(repo, "checkout", "--quiet", "main")
    publisher.publish(release("v3"))
    assert publisher.published_versions() == ["v1", "v2", "v3"]
    assert _git(repo, "rev-parse", "notes") == theirs


def test_a_repository_made_with_another_default_branch_gets_its_versions_on_main(tmp_path: Path) -> None:
    repo = tmp_path / "hub"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=trunk")
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    publisher.publish(release("v2"))
    assert _git(repo, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert publisher.published_versions() == ["v1", "v2"]
    assert snapshot(repo) == snapshot(_fresh(tmp_path, "v1", "v2"))


def test_a_card_edited_by_hand_is_replaced_by_the_next_versions_card(tmp_path: Path) -> None:
    # The folder is the publisher's output: an edit there is not a version, and the next publish writes its own.
    repo, publisher = _published(tmp_path, "v1")
    (repo / "README.md").write_text("edited by hand\n")
    (repo / "data" / "extra.txt").write_text("dropped here by hand\n")
    publisher.publish(release("v2"))
    assert snapshot(repo) == snapshot(_fresh(tmp_path, "v1", "v2"))
    assert _git(repo, "status", "--porcelain") == ""
