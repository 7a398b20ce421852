"""Fault corpus, publish retries: a publish fails or is killed at each step (create repo, list, stage the card, upload
and commit, tag), on the Hub (the recording stand-in, where a call may also fail after the Hub did it: the answer
lost) and in the local git repository. Publishing again ends in exactly the state one clean publish gives: one
commit holding the data, one tag on it, no duplicate commit, the same files."""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from huggingface_hub import HfApi

from coworkenv.atomic import WriteError
from coworkenv.store import HfHubPublisher, LocalGitPublisher, PublishError
from coworkenv.store import _publisher as publisher_module
from coworkenv.store._release import CARD_NAME
from tests.faults.harness import release, run_child, snapshot, temp_files
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi, _release

SIGKILLED = -9


class LossyHubApi(RecordingHubApi):
    """The stand-in, where a call can also fail after the Hub did its work (a timeout, a dropped connection)."""

    def __init__(self) -> None:
        super().__init__()
        self.lose_answer_of: str | None = None

    def _answer(self, name: str, call: Callable[[], Any]) -> Any:
        result = call()
        if name == self.lose_answer_of:
            raise RuntimeError("504 Gateway Timeout")
        return result

    def create_repo(self, repo_id: str, **kwargs: Any) -> None:
        self._answer("create_repo", lambda: super(LossyHubApi, self).create_repo(repo_id, **kwargs))

    def create_commit(self, repo_id: str, operations: list[Any], **kwargs: Any) -> Any:
        return self._answer("create_commit", lambda: super(LossyHubApi, self).create_commit(repo_id, operations,
                                                                                            **kwargs))

    def create_tag(self, repo_id: str, **kwargs: Any) -> None:
        self._answer("create_tag", lambda: super(LossyHubApi, self).create_tag(repo_id, **kwargs))


@pytest.fixture
def hub_token(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return TOKEN


def _hub_state(api: RecordingHubApi) -> tuple[list[dict[str, bytes]], dict[str, int]]:
    """The branch as a list of trees, and each tag as the position of its commit on the branch."""
    return [api.trees[oid] for oid in api.history], {tag: api.history.index(oid) for tag, oid in api.tags.items()}


def _fail_card_staging(monkeypatch: pytest.MonkeyPatch) -> None:
    real = publisher_module.atomic_write_bytes

    def full_disk(final: Path, data: bytes) -> None:
        if final.name == CARD_NAME:  # what atomic_write_bytes raises on a full disk
            raise WriteError(final, OSError(errno.ENOSPC, "No space left on device"))
        real(final, data)

    monkeypatch.setattr(publisher_module, "atomic_write_bytes", full_disk)


HUB_FAULTS = [("create_repo", "fails"), ("create_repo", "answer lost"), ("list_repo_refs", "fails"),
              ("list_repo_tree", "fails"), ("card", "fails"), ("create_commit", "fails"),
              ("create_commit", "answer lost"), ("create_tag", "fails"), ("create_tag", "answer lost")]


@pytest.mark.parametrize(("call", "how"), HUB_FAULTS)
def test_a_hub_publish_retried_after_a_failure_at_any_call_equals_one_clean_publish(
        hub_token: str, monkeypatch: pytest.MonkeyPatch, call: str, how: str) -> None:
    first, second = _release(train_rows=3, shard_rows=2), _release(train_rows=5, shard_rows=2)
    clean = RecordingHubApi()
    for version in (first, second):
        HfHubPublisher(REPO, api=cast(HfApi, clean)).publish(version)
    api = LossyHubApi()
    publisher = HfHubPublisher(REPO, api=cast(HfApi, api))
    publisher.publish(first)
    with monkeypatch.context() as patch:
        if call == "card":
            _fail_card_staging(patch)
        elif how == "fails":
            api.fail_on, api.error_text = call, "503 Service Unavailable"
        else:
            api.lose_answer_of = call
        try:
            publisher.publish(second)
            assert (call, how) == ("create_tag", "answer lost")  # the check after a failed tag finds it landed
        except (PublishError, OSError) as error:
            assert "publish again" in str(error) or "free disk space" in str(error), error
    api.fail_on = api.lose_answer_of = None
    result = publisher.publish(second)
    assert _hub_state(api) == _hub_state(clean)  # one commit per version, each tagged once, same files
    assert result.revision == api.tags[second.version] == api.head
    assert publisher.published_versions() == [first.version, second.version]


def test_two_hub_publishes_of_one_version_racing_end_in_one_commit_and_one_tag(hub_token: str) -> None:
    """The second sees the first's untagged commit (its retry after a 412): it tags that, not a copy of it."""
    version = _release(train_rows=3, shard_rows=2)
    api = RecordingHubApi()
    first, second = HfHubPublisher(REPO, api=cast(HfApi, api)), HfHubPublisher(REPO, api=cast(HfApi, api))
    real_tag = api.create_tag
    calls: list[str] = []

    def second_publish_lands_first(repo_id: str, **kwargs: Any) -> None:
        if not calls:
            calls.append("nested")
            second.publish(version)  # runs between the first's commit and its tag
        real_tag(repo_id, **kwargs)

    api.create_tag = second_publish_lands_first  # type: ignore[method-assign]
    first.publish(version)
    assert len(api.history) == 2 and list(api.tags) == [version.version]


# -- the local git repository ----------------------------------------------------------------------------------------
def _git_state(repo: Path) -> tuple[list[tuple[str, str]], dict[str, int], dict[str, str]]:
    """(message, tree) of each commit on main, each tag as its commit's position, and the files of the folder."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout

    commits = git("rev-list", "--first-parent", "--reverse", "main").split()
    history = [(git("log", "-1", "--format=%B", c).strip(), git("rev-parse", f"{c}^{{tree}}").strip())
               for c in commits]
    tags = {tag: commits.index(git("rev-parse", f"{tag}^{{commit}}").strip()) for tag in git("tag").split()}
    return history, tags, snapshot(repo)


@pytest.fixture(scope="module")
def clean_local(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[tuple[str, str]], dict[str, int],
                                                                     dict[str, str]]:
    repo = tmp_path_factory.mktemp("clean") / "hub"
    for tag in ("v1", "v2"):
        LocalGitPublisher(repo).publish(release(tag))
    return _git_state(repo)


def _failing_git_step(monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    real = LocalGitPublisher._run

    def run(self: LocalGitPublisher, *args: str, locate: bool = True,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        if args[0] == step:  # each of these git commands runs once in a publish
            return subprocess.CompletedProcess(["git", *args], 128, "", "fatal: Unable to write: I/O error")
        return real(self, *args, locate=locate, input=input)

    monkeypatch.setattr(LocalGitPublisher, "_run", run)


@pytest.mark.parametrize("step", ["card", "copy", "add", "write-tree", "commit-tree", "mktag", "update-ref"])
def test_a_local_publish_that_failed_at_any_step_then_retried_equals_one_clean_publish(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_local: Any, step: str) -> None:
    repo = tmp_path / "hub"
    LocalGitPublisher(repo).publish(release("v1"))
    with monkeypatch.context() as patch:
        if step == "card":
            _fail_card_staging(patch)
        elif step == "copy":
            patch.setattr("coworkenv.store._local_git.atomic_copy",
                          lambda source, final: (_ for _ in ()).throw(WriteError(final, OSError(errno.ENOSPC, ""))))
        else:
            _failing_git_step(patch, step)
        with pytest.raises((PublishError, OSError)) as caught:
            LocalGitPublisher(repo).publish(release("v2"))
    assert str(repo) in str(caught.value) or "free disk space" in str(caught.value)
    LocalGitPublisher(repo).publish(release("v2"))
    assert _git_state(repo) == clean_local
    assert temp_files(repo) == []


@pytest.mark.parametrize(("step", "when"), [("commit-tree", "after"), ("mktag", "after"), ("update-ref", "before"),
                                           ("add", "after")])
def test_a_local_publish_killed_around_its_commit_then_retried_equals_one_clean_publish(
        tmp_path: Path, clean_local: Any, step: str, when: str) -> None:
    repo = tmp_path / "hub"
    LocalGitPublisher(repo).publish(release("v1"))
    killed = run_child([str(repo), "v2", step, when], call="tests.faults.scenarios:publish_killed_at_git_step", preloaded=True)
    assert killed.returncode == SIGKILLED, killed.stderr
    LocalGitPublisher(repo).publish(release("v2"))
    assert _git_state(repo) == clean_local
    assert temp_files(repo) == []


def test_a_published_version_published_again_after_a_later_one_is_not_mistaken_for_a_retry(tmp_path: Path) -> None:
    """v1, v2, v1 again: the branch goes back to v1's files with its own commit; nothing is tagged twice."""
    repo = tmp_path / "hub"
    for tag in ("v1", "v2", "v1", "v2"):
        LocalGitPublisher(repo).publish(release(tag))
    history, tags, _ = _git_state(repo)
    assert [message for message, _ in history] == ["Dataset version v1", "Dataset version v2", "Back to v1",
                                                   "Back to v2"]
    assert tags == {"v1": 0, "v2": 1}
