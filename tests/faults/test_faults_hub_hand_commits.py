"""Fault corpus, a commit made by hand on the Hub and titled as a publish titles its own (`Version V`, `Dataset
version V`): faults52 tags, before each publish, the version an interrupted publish committed at the head of the
branch and never tagged, read from the head commit's title. faults54 told a person's commit from a publish's in a
local repository by its committer; on the Hub both are made by the same account (the token's), so a person's commit
at the head with such a title (a note, a fix of the card uploaded as "Version v2") was tagged V: a name on files no
publish made, and the publish of V itself then found the name taken by other content and went under `V.v2` (readers
asking for V got the person's commit), or a name no publish took (`v7`) became a version. And the other way round: a
version whose tag failed, with a person's commit on top of it, was never tagged (only the head was looked at), so the
version readers of the branch had loaded was in no tag and listed nowhere.

Now each publish marks its commit (`Coworkenv-Publish: V` in the commit's description), and only a commit so marked
is tagged as left by an interrupted publish; a commit by hand is left untagged, said in a warning, and the publish
commits on top of it; a marked commit left untagged is tagged by the next publish, below a person's commits too (down to
the last version tagged). A repository whose branch holds no marked commit (published by an older coworkenv alone, whose
commits carry none) keeps the earlier rule: its unmarked head is taken for an older publish, as before, and the
warning says how to undo it if it was not."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from huggingface_hub import CommitOperationAdd

from coworkenv.store import PublishError
from tests.faults.test_faults_hub import _publisher as _hub
from tests.faults.test_faults_hub import token  # noqa: F401 (autouse: HF_TOKEN set, the Hub offline)
from tests.test_store_hf_hub import REPO, RecordingHubApi


def _folder(where: Path, text: str) -> Path:
    where.mkdir(parents=True)
    (where / "weights.txt").write_text(text)
    return where


def _commit_by_hand(api: RecordingHubApi, where: Path, title: str) -> str:
    """What a person's upload with the same token leaves: a commit on main titled `title`, with no description."""
    note = where / "NOTES.md"
    note.write_text(f"{title}: what changed\n")
    api.create_commit(REPO, [CommitOperationAdd(path_in_repo="NOTES.md", path_or_fileobj=str(note))],
                      commit_message=title, repo_type="dataset", revision="main",
                      parent_commit=api.head)
    return api.head


@pytest.mark.parametrize(("title", "version"), [
    ("Version v2", "v2"),  # the name the publish takes next
    ("Dataset version v7", "v8"),  # a name no publish takes
])
def test_a_head_commit_made_by_hand_on_the_hub_is_not_taken_for_a_publish(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, title: str, version: str) -> None:
    api = RecordingHubApi()
    publisher = _hub(api)
    publisher.publish_folder(_folder(tmp_path / "one", "first weights"), "v1", "# v1\n")
    by_hand = _commit_by_hand(api, tmp_path, title)
    with caplog.at_level(logging.WARNING):
        result = publisher.publish_folder(_folder(tmp_path / "two", "second weights"), version, f"# {version}\n")
    assert result.tag == version and sorted(api.tags) == ["v1", version]
    assert api.trees[api.tags[version]]["weights.txt"] == b"second weights"
    assert api.tags[version] == result.revision != by_hand
    assert api.history[-2] == by_hand  # the person's commit is kept, under the version
    assert publisher.published_versions() == ["v1", version]
    assert "carries no publish's mark" in caplog.text and "left untagged" in caplog.text


def test_each_publish_marks_its_commit_and_a_marked_one_left_untagged_is_still_tagged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    api = RecordingHubApi()
    publisher = _hub(api)
    publisher.publish_folder(_folder(tmp_path / "one", "first weights"), "v1", "# v1\n")
    assert api.messages[api.head] == "Version v1\n\nCoworkenv-Publish: v1"
    api.fail_on, api.error_text = "create_tag", "502 Bad Gateway"
    with pytest.raises(PublishError, match="but not tagged"):
        publisher.publish_folder(_folder(tmp_path / "two", "second weights"), "v2", "# v2\n")
    api.fail_on, left = None, api.head
    with caplog.at_level(logging.WARNING):
        publisher.publish_folder(_folder(tmp_path / "three", "third weights"), "v3", "# v3\n")
    assert api.tags["v2"] == left and publisher.published_versions() == ["v1", "v2", "v3"]
    assert "version v2 was committed on main" in caplog.text


def test_a_version_left_untagged_under_a_commit_by_hand_is_tagged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    api = RecordingHubApi()
    publisher = _hub(api)
    publisher.publish_folder(_folder(tmp_path / "one", "first weights"), "v1", "# v1\n")
    api.fail_on, api.error_text = "create_tag", "503 Service Unavailable"
    with pytest.raises(PublishError, match="but not tagged"):
        publisher.publish_folder(_folder(tmp_path / "two", "second weights"), "v2", "# v2\n")
    api.fail_on, left = None, api.head
    _commit_by_hand(api, tmp_path, "Upload NOTES.md")  # a person's note, on top of the version readers loaded
    with caplog.at_level(logging.WARNING):
        result = publisher.publish_folder(_folder(tmp_path / "three", "third weights"), "v3", "# v3\n")
    assert api.tags["v2"] == left and api.trees[left]["weights.txt"] == b"second weights"
    assert result.tag == "v3" and publisher.published_versions() == ["v1", "v2", "v3"]
    assert "tagged it v2 now (under 1 later commit" in caplog.text


def test_an_older_coworkenvs_unmarked_publish_left_untagged_is_still_tagged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The rule for older publishes: no commit on the branch is marked, so the head's title is all there is."""
    api = RecordingHubApi()
    publisher = _hub(api)
    api.create_repo(REPO, repo_type="dataset", private=False, exist_ok=True)
    api.tags["v1"] = _commit_by_hand(api, tmp_path, "Version v1")  # an older coworkenv's publish, tagged
    left = _commit_by_hand(api, tmp_path, "Version v2")  # ... and one interrupted before its tag
    with caplog.at_level(logging.WARNING):
        result = publisher.publish_folder(_folder(tmp_path / "three", "third weights"), "v3", "# v3\n")
    assert api.tags["v2"] == left and result.tag == "v3" and api.history[-2] == left
    assert publisher.published_versions() == ["v1", "v2", "v3"]
    assert "no commit on main carries a publish's mark" in caplog.text
