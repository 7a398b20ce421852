"""Fault corpus, a version committed and never tagged: the Hub has no transaction of a commit and a tag, so a publish
whose tag failed (an outage, a refused call) or that was killed between the two calls left its version on the branch,
untagged, where readers of the branch load it; a local repository is left so by git killed inside its ref
transaction, or by an older coworkenv, which committed and then tagged. A retry of the same version tagged it; the
next publish of anything else committed on top of it, and the version readers had loaded was in no tag and listed
nowhere (`published_versions`), or, for a checkpoint trained again under its name, its name went to other weights.

Now every publish first tags the version that its commit's message names, when the head is that commit and no tag
has its name (`_tag_left_untagged`); the error of the failed tag says that it will. Regression guards: a "Back to"
commit (a version published again after a newer one) and a commit made by hand are not tagged."""

from __future__ import annotations

import json
import logging
import subprocess
from pathlib import Path

import pytest

from coworkenv.checkpoint_manifest import write_checkpoint_manifest
from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.test_faults_hub import _publisher as _hub
from tests.faults.test_faults_hub import token  # noqa: F401 (autouse: HF_TOKEN set, the Hub offline)
from tests.test_store_hf_hub import RecordingHubApi, _release


def _checkpoint(folder: Path, weights: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen2", "hidden_size": 32}))
    (folder / "model.safetensors").write_text(weights)
    write_checkpoint_manifest(folder)
    return folder


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def test_a_hub_version_whose_tag_failed_is_tagged_by_the_next_publish_of_another(
        caplog: pytest.LogCaptureFixture) -> None:
    first, second, third = (_release(train_rows=n, shard_rows=2) for n in (3, 5, 7))
    api = RecordingHubApi()
    publisher = _hub(api)
    publisher.publish(first)
    api.fail_on, api.error_text = "create_tag", "503 Service Unavailable"
    with pytest.raises(PublishError) as caught:
        publisher.publish(second)
    message = str(caught.value)
    committed = api.head
    assert f"{second.version} is committed on main ({committed[:12]}) but not tagged" in message
    assert "the next publish, of this version or any other, tags it" in message
    api.fail_on = None
    second_tree = api.trees[committed]
    with caplog.at_level(logging.WARNING):
        result = publisher.publish(third)  # the pipeline's next run: other data, another version
    assert api.tags[second.version] == committed and api.trees[committed] == second_tree
    assert publisher.published_versions() == [first.version, second.version, third.version]
    assert result.tag == third.version and api.history[-2] == committed
    assert f"version {second.version} was committed on main" in caplog.text


def test_a_checkpoint_trained_again_after_its_tag_failed_does_not_take_the_first_weights_name(
        tmp_path: Path) -> None:
    api = RecordingHubApi()
    publisher = _hub(api)
    folder = _checkpoint(tmp_path / "ckpt", "first weights")
    api.fail_on, api.error_text = "create_tag", "502 Bad Gateway"
    with pytest.raises(PublishError):
        publisher.publish_folder(folder, "sft-1", "# card\n")
    first = api.head
    api.fail_on = None
    _checkpoint(folder, "other weights")  # trained again under the same name before publishing again
    result = publisher.publish_folder(folder, "sft-1", "# card\n")
    assert api.tags["sft-1"] == first and api.trees[first]["model.safetensors"] == b"first weights"
    assert result.tag == "sft-1.v2" and api.trees[result.revision]["model.safetensors"] == b"other weights"


def test_a_local_version_left_untagged_is_tagged_by_the_next_publish_of_another(tmp_path: Path) -> None:
    first, second, third = (_release(train_rows=n, shard_rows=2) for n in (3, 5, 7))
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish(first)
    publisher.publish(second)
    # What a publish that stopped between its commit and its tag leaves: the branch on the version, no tag.
    _git(repo, "tag", "-d", second.version)
    committed = _git(repo, "rev-parse", "HEAD").strip()
    publisher.publish(third)
    assert _git(repo, "rev-parse", f"{second.version}^{{commit}}").strip() == committed
    assert publisher.published_versions() == [first.version, second.version, third.version]
    assert _git(repo, "rev-parse", "main~1").strip() == committed


def test_back_to_commits_and_commits_by_hand_are_not_tagged(tmp_path: Path) -> None:
    first, second, third = (_release(train_rows=n, shard_rows=2) for n in (3, 5, 7))
    api = RecordingHubApi()
    publisher = _hub(api)
    for release in (first, second, first):  # the last one: a "Back to" commit, untagged
        publisher.publish(release)
    back = api.head
    publisher.publish(third)
    assert sorted(api.tags) == sorted(r.version for r in (first, second, third)) and back not in api.tags.values()
    repo = tmp_path / "repo"
    local = LocalGitPublisher(repo)
    local.publish(first)
    (repo / "NOTES.md").write_text("Version notes\n")
    _git(repo, "add", "NOTES.md")
    _git(repo, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-m", "Version v9 notes")
    local.publish(second)
    assert sorted(_git(repo, "tag", "--list").split()) == sorted([first.version, second.version])
