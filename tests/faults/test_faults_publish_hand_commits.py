"""Fault corpus, a commit made by hand in the local dataset repository and titled as a publish titles its own
(`Version V`, `Dataset version V`): faults52 tags, before each publish, the version an interrupted publish committed
at the head of the branch and never tagged, read from the head commit's title. A person's commit at the head with
such a title (a note, a fix of the card, `git commit -m "Version v3"` before publishing v3) was taken for one: it was
tagged V, though no publish made it and it holds the person's files; the publish of V itself then found the name
taken by other content and went under `V.v2`, and readers asking for V got the hand-made commit.

Now only a commit a publish made (the publisher's identity, `coworkenv@localhost`, as author and committer) is
tagged so; another is left untagged, said in a warning, and the publish commits on top of it."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _folder(where: Path, text: str) -> Path:
    where.mkdir(parents=True)
    (where / "weights.txt").write_text(text)
    return where


def _commit_by_hand(repo: Path, title: str) -> str:
    (repo / "NOTES.md").write_text(f"{title}: what changed\n")
    _git(repo, "add", "NOTES.md")
    _git(repo, "-c", "user.name=Ada", "-c", "user.email=ada@example.org", "commit", "-q", "-m", title)
    return _git(repo, "rev-parse", "HEAD").strip()


@pytest.mark.parametrize(("title", "version"), [
    ("Version v2", "v2"),  # the name the publish takes next
    ("Dataset version v7", "v8"),  # a name no publish takes
])
def test_a_head_commit_made_by_hand_is_not_taken_for_a_publish(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, title: str, version: str) -> None:
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish_folder(_folder(tmp_path / "one", "first weights"), "v1", "# v1\n")
    by_hand = _commit_by_hand(repo, title)
    with caplog.at_level(logging.WARNING):
        result = publisher.publish_folder(_folder(tmp_path / "two", "second weights"), version, f"# {version}\n")
    assert result.tag == version and sorted(_git(repo, "tag", "--list").split()) == ["v1", version]
    assert _git(repo, "show", f"{version}:weights.txt") == "second weights"
    assert _git(repo, "rev-parse", f"{version}^{{commit}}").strip() == result.revision != by_hand
    assert _git(repo, "rev-parse", "main~1").strip() == by_hand  # the person's commit is kept, under the version
    assert publisher.published_versions() == ["v1", version]
    assert "made by ada@example.org, not by a publish: left untagged" in caplog.text
