"""Fault corpus, the order of published versions after the local dataset repository's branch `main` was reset by hand
(`git reset --hard v1`, to go back on a bad version) and publishing went on. The version left off the branch was
listed last by `published_versions()` (v1, v3, v2: by place on the branch alone), and the refusal that tells how to
make a missing `main` again named it as "the last version" (`git branch main v2`): doing as told put readers of `main`
back on the abandoned version. Versions are listed in the order they were published, a version left off the branch
just after the one it forked from, numbers in names compared as numbers."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import cast

import pytest
from huggingface_hub import HfApi
from huggingface_hub.hf_api import GitCommitInfo

from coworkenv.store import HfHubPublisher, LocalGitPublisher, PublishError
from tests.faults.harness import release
from tests.faults.test_faults_hub_state import _git  # git as a person runs it
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi, _release

DATED = ["v2026.12.01-9f0e1d2c", "v2026.12.02-1a2b3c4d", "v2026.12.03-0b1c2d3e"]  # as release_version names them


def _reset_by_hand_then_published(repo: Path, first: str, dropped: str, *later: str) -> LocalGitPublisher:
    publisher = LocalGitPublisher(repo)
    publisher.publish(release(first))
    publisher.publish(release(dropped))
    _git(repo, "reset", "--quiet", "--hard", first)  # back on the first version, by hand
    for tag in later:
        publisher.publish(release(tag))
    return publisher


@pytest.mark.parametrize("tags", [["v1", "v2", "v3"], ["v1", "v2", "v3", "v4"], ["v1", "v2", "v10"], DATED],
                         ids=["one-later", "two-later", "v10-after-v2", "dated-names"])
def test_versions_after_a_reset_by_hand_are_listed_in_the_order_they_were_published(tmp_path: Path,
                                                                                   tags: list[str]) -> None:
    publisher = _reset_by_hand_then_published(tmp_path / "hub", *tags)
    assert publisher.published_versions() == tags


def test_a_checkpoint_repository_reset_by_hand_lists_its_versions_in_order(tmp_path: Path) -> None:
    checkpoint, repo = tmp_path / "checkpoint", tmp_path / "hub"
    checkpoint.mkdir()
    publisher = LocalGitPublisher(repo)
    for tag in ("v1", "v2"):
        (checkpoint / "model.safetensors").write_bytes(f"weights of {tag}".encode())
        publisher.publish_folder(checkpoint, tag, f"# {tag}\n")
    _git(repo, "reset", "--quiet", "--hard", "v1")
    (checkpoint / "model.safetensors").write_bytes(b"weights of v3")
    publisher.publish_folder(checkpoint, "v3", "# v3\n")
    assert publisher.published_versions() == ["v1", "v2", "v3"]


@pytest.mark.parametrize("lost", ["deleted-with-the-first-version-checked-out", "renamed-then-someones-commit"])
def test_the_advice_that_makes_a_missing_main_again_names_the_last_version_published(tmp_path: Path,
                                                                                    lost: str) -> None:
    repo = tmp_path / "hub"
    publisher = _reset_by_hand_then_published(repo, "v1", "v2", "v3")
    if lost == "deleted-with-the-first-version-checked-out":
        _git(repo, "checkout", "--quiet", "v1")
        _git(repo, "branch", "-D", "main")
    else:
        _git(repo, "branch", "-m", "main", "master")
        (repo / "notes.md").write_text("someone's notes\n")
        _git(repo, "add", "notes.md")
        _git(repo, "commit", "--quiet", "-m", "notes")
    with pytest.raises(PublishError) as refused:
        publisher.publish(release("v4"))
    message = str(refused.value)
    commands = message.split("`")[1::2]
    assert commands and commands[-1].endswith(" main v3"), message  # not v2, which the reset left behind
    for command in commands:  # what the message asks, as written
        _git(repo, *command.split()[3:])
    publisher.publish(release("v4"))
    assert _git(repo, "merge-base", "--is-ancestor", "v3", "main") == ""  # main kept the last version
    assert publisher.published_versions() == ["v1", "v2", "v3", "v4"]


def test_a_version_published_again_keeps_the_order_of_the_first_publishes(tmp_path: Path) -> None:
    """Regression guard (held on main): a "Back to v1" publish makes no new version and moves no tag."""
    publisher = LocalGitPublisher(tmp_path / "hub")
    for tag in ("v1", "v2", "v1"):
        publisher.publish(release(tag))
    assert publisher.published_versions() == ["v1", "v2"]


class HubWithHistory(RecordingHubApi):
    """The in-memory Hub, with commits that know their parent: `main` can be reset and force-pushed, and a tag's own
    history listed (`list_repo_commits(revision=tag)`), as on the Hub."""

    def __init__(self) -> None:
        super().__init__()
        self.parents: dict[str, str] = {}

    def _new_commit(self, tree: dict[str, bytes], message: str = "initial commit") -> str:
        oid = hashlib.sha1(f"{len(self.parents)}:{sorted(tree.items())}".encode()).hexdigest()
        self.parents[oid], self.trees[oid], self.messages[oid] = self.head, tree, message
        self.history.append(oid)
        return oid

    def list_repo_commits(self, repo_id: str, *, repo_type: str, revision: str) -> list[GitCommitInfo]:
        if revision == "main":
            return super().list_repo_commits(repo_id, repo_type=repo_type, revision=revision)
        lineage, commit = [], self.tags[revision]
        while commit:
            lineage.append(commit)
            commit = self.parents[commit]
        main, self.history = self.history, lineage[::-1]
        try:
            return super().list_repo_commits(repo_id, repo_type=repo_type, revision=revision)
        finally:
            self.history = main


@pytest.mark.parametrize("later", [1, 2])
def test_hub_versions_after_main_was_reset_and_force_pushed_are_listed_in_publish_order(
        monkeypatch: pytest.MonkeyPatch, later: int) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    api = HubWithHistory()
    publisher = HfHubPublisher(REPO, api=cast(HfApi, api))
    releases = [_release(train_rows=rows, shard_rows=2) for rows in range(3, 5 + later)]
    publisher.publish(releases[0])
    publisher.publish(releases[1])
    del api.history[api.history.index(api.tags[releases[0].version]) + 1:]  # main reset to the first, force-pushed
    for later_release in releases[2:]:
        publisher.publish(later_release)
    assert publisher.published_versions() == [r.version for r in releases]
