"""Hub publishing against a recording stand-in for HfApi: exact commit operations, tags, and a token kept secret."""

from __future__ import annotations

import hashlib
import inspect
import logging
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pyarrow as pa
import pytest
from huggingface_hub import CommitInfo, CommitOperationAdd, CommitOperationDelete, HfApi
from huggingface_hub.hf_api import GitCommitInfo, GitRefInfo, GitRefs, RepoFile

from coworkenv.store import (
    DatasetCardInfo,
    DatasetRelease,
    HfHubPublisher,
    LocalGitPublisher,
    PublishError,
    publisher_from_config,
    release_version,
    shard_table,
)

TOKEN = "hf_FAKEtokenDoNotLeak0123456789"
REPO = "coworkers/coworkenv"


class RecordingHubApi:
    """A Hub repository in memory: branches, tags, commits, files; records every call it gets."""

    endpoint = "https://hub.example"

    def __init__(self, fail_on: str | None = None, error_text: str = "") -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.trees: dict[str, dict[str, bytes]] = {}
        self.history: list[str] = []  # commit ids on main, oldest first
        self.tags: dict[str, str] = {}
        self.messages: dict[str, str] = {}  # commit id -> its message
        self.fail_on = fail_on
        self.error_text = error_text
        self.repo_exists = False

    # -- helpers for the tests
    @property
    def head(self) -> str:
        return self.history[-1] if self.history else ""

    def commits(self) -> list[dict[str, Any]]:
        return [kwargs for name, kwargs in self.calls if name == "create_commit"]

    def _record(self, name: str, **kwargs: Any) -> None:
        self.calls.append((name, kwargs))
        if name == self.fail_on:
            raise RuntimeError(self.error_text)

    def _new_commit(self, tree: dict[str, bytes], message: str = "initial commit") -> str:
        oid = hashlib.sha1(f"{len(self.history)}:{sorted(tree)}".encode()).hexdigest()
        self.trees[oid] = tree
        self.messages[oid] = message
        self.history.append(oid)
        return oid

    # -- the HfApi methods the publisher calls
    def create_repo(self, repo_id: str, *, repo_type: str, private: bool, exist_ok: bool) -> None:
        self._record("create_repo", repo_id=repo_id, repo_type=repo_type, private=private, exist_ok=exist_ok)
        if not self.repo_exists:
            self.repo_exists = True
            self._new_commit({".gitattributes": b"*.parquet filter=lfs\n"})  # the Hub's initial commit

    def list_repo_refs(self, repo_id: str, *, repo_type: str) -> GitRefs:
        self._record("list_repo_refs", repo_id=repo_id, repo_type=repo_type)
        branches = [GitRefInfo(name="main", ref="refs/heads/main", target_commit=self.head)] if self.history else []
        tags = [GitRefInfo(name=t, ref=f"refs/tags/{t}", target_commit=c) for t, c in self.tags.items()]
        return GitRefs(branches=branches, converts=[], tags=tags)

    def list_repo_files(self, repo_id: str, *, repo_type: str, revision: str) -> list[str]:
        self._record("list_repo_files", repo_id=repo_id, repo_type=repo_type, revision=revision)
        return sorted(self.trees[revision])

    def list_repo_tree(self, repo_id: str, *, recursive: bool, revision: str, repo_type: str) -> list[RepoFile]:
        self._record("list_repo_tree", repo_id=repo_id, recursive=recursive, revision=revision, repo_type=repo_type)
        return [  # as the Hub lists them: .parquet files in LFS (per .gitattributes), known by their sha256
            RepoFile(path=path, size=len(data), oid=hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(),
                     lfs={"size": len(data), "oid": hashlib.sha256(data).hexdigest(), "pointerSize": 134}
                     if path.endswith(".parquet") else None)
            for path, data in sorted(self.trees[revision].items())
        ]

    def list_repo_commits(self, repo_id: str, *, repo_type: str, revision: str) -> list[GitCommitInfo]:
        self._record("list_repo_commits", repo_id=repo_id, repo_type=repo_type, revision=revision)
        now = datetime(2026, 11, 30, tzinfo=UTC)
        return [
            GitCommitInfo(
                commit_id=oid,
                authors=[],
                created_at=now,
                title=self.messages.get(oid, "").partition("\n")[0],  # the Hub's title: the first line
                message=self.messages.get(oid, "").partition("\n")[2].strip(),  # ... and its description
                formatted_title=None,
                formatted_message=None,
            )
            for oid in reversed(self.history)
        ]

    def create_commit(
        self,
        repo_id: str,
        operations: list[Any],
        *,
        commit_message: str,
        commit_description: str | None = None,
        repo_type: str,
        revision: str,
        parent_commit: str | None,
    ) -> CommitInfo:
        adds = {
            op.path_in_repo: Path(str(op.path_or_fileobj)).read_bytes()
            for op in operations
            if isinstance(op, CommitOperationAdd)
        }
        deletes = [op.path_in_repo for op in operations if isinstance(op, CommitOperationDelete)]
        self._record(
            "create_commit",
            repo_id=repo_id,
            repo_type=repo_type,
            revision=revision,
            parent_commit=parent_commit,
            commit_message=commit_message,
            added=sorted(adds),
            deleted=deletes,
        )
        if parent_commit != self.head:  # what the Hub answers: 412 Precondition Failed
            raise RuntimeError(f"412 parent commit {parent_commit} is not the head {self.head}")
        tree = {path: data for path, data in self.trees[self.head].items() if path not in deletes} | adds
        # The Hub's commit message: the summary, then the description after a blank line.
        message = f"{commit_message}\n\n{commit_description}" if commit_description else commit_message
        oid = self._new_commit(tree, message)
        prefix = "datasets/" if repo_type == "dataset" else ""
        return CommitInfo(
            commit_url=f"{self.endpoint}/{prefix}{repo_id}/commit/{oid}",
            _endpoint=self.endpoint,
            commit_message=commit_message,
            commit_description=commit_description or "",
            oid=oid,
        )

    def create_tag(self, repo_id: str, *, tag: str, tag_message: str, revision: str, repo_type: str) -> None:
        self._record(
            "create_tag", repo_id=repo_id, tag=tag, revision=revision, repo_type=repo_type, tag_message=tag_message
        )
        self.tags[tag] = revision


def _release(train_rows: int, shard_rows: int) -> DatasetRelease:
    table = pa.table({"prompt": [f"p{i}" for i in range(train_rows)], "reward": [float(i) for i in range(train_rows)]})
    configs = {
        "sft": {"train": shard_table(table, shard_rows), "test": [table.slice(0, 1)]},
        "specs": {"train": [pa.table({"spec_json": ['{"goal": "x"}']})]},
    }
    card = DatasetCardInfo(pretty_name="CoworkEnv", description="test release")
    return DatasetRelease(version=release_version(configs), configs=configs, card=card)


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return TOKEN


def _publisher(api: RecordingHubApi, **kwargs: Any) -> HfHubPublisher:
    return HfHubPublisher(REPO, api=cast(HfApi, api), **kwargs)


def test_one_commit_per_version_on_top_of_the_head_then_a_tag(token: str, tmp_path: Path) -> None:
    api = RecordingHubApi()
    publisher = _publisher(api)
    first, second = _release(train_rows=5, shard_rows=2), _release(train_rows=2, shard_rows=10)

    one = publisher.publish(first)
    initial = api.history[0]
    two = publisher.publish(second)

    commits = api.commits()
    assert len(commits) == 2
    assert commits[0]["parent_commit"] == initial and commits[1]["parent_commit"] == one.revision
    assert all(c["repo_type"] == "dataset" and c["revision"] == "main" for c in commits)
    assert commits[0]["added"] == [
        "README.md",
        "data/sft/test-00000-of-00001.parquet",
        "data/sft/train-00000-of-00003.parquet",
        "data/sft/train-00001-of-00003.parquet",
        "data/sft/train-00002-of-00003.parquet",
        "data/specs/train-00000-of-00001.parquet",
    ]
    assert commits[0]["deleted"] == []
    assert commits[1]["added"] == [
        "README.md",
        "data/sft/test-00000-of-00001.parquet",
        "data/sft/train-00000-of-00001.parquet",
        "data/specs/train-00000-of-00001.parquet",
    ]
    assert commits[1]["deleted"] == [
        "data/sft/train-00000-of-00003.parquet",
        "data/sft/train-00001-of-00003.parquet",
        "data/sft/train-00002-of-00003.parquet",
    ]
    tags = [kwargs for name, kwargs in api.calls if name == "create_tag"]
    assert [(t["tag"], t["revision"]) for t in tags] == [(first.version, one.revision), (second.version, two.revision)]
    assert sorted(api.trees[two.revision]) == [".gitattributes", *two.files]  # the Hub's .gitattributes is kept
    assert two.location == f"https://hub.example/datasets/{REPO}"
    assert publisher.published_versions() == [first.version, second.version]


def test_hub_and_local_repositories_hold_the_same_files(token: str, tmp_path: Path) -> None:
    api = RecordingHubApi()
    release = _release(train_rows=5, shard_rows=2)
    hub = _publisher(api).publish(release)
    local = LocalGitPublisher(tmp_path / "repo").publish(release)
    assert hub.files == local.files
    for path in hub.files:
        assert api.trees[hub.revision][path] == (tmp_path / "repo" / path).read_bytes(), path


def test_publishing_a_published_version_again_commits_nothing(token: str) -> None:
    api = RecordingHubApi()
    publisher = _publisher(api)
    release = _release(train_rows=3, shard_rows=2)
    first = publisher.publish(release)
    again = publisher.publish(release)
    assert again == first
    assert len(api.commits()) == 1
    assert [name for name, _ in api.calls].count("create_tag") == 1


def test_a_concurrent_publish_fails_instead_of_overwriting(token: str) -> None:
    api = RecordingHubApi()
    publisher = _publisher(api)
    publisher.publish(_release(train_rows=3, shard_rows=2))
    real_refs = api.list_repo_refs

    def refs_then_someone_else_commits(repo_id: str, *, repo_type: str) -> GitRefs:
        refs = real_refs(repo_id, repo_type=repo_type)
        api._new_commit(dict(api.trees[api.head]))  # another writer moves main after we read it
        return refs

    api.list_repo_refs = refs_then_someone_else_commits  # type: ignore[method-assign]
    with pytest.raises(PublishError, match="publish again"):
        publisher.publish(_release(train_rows=4, shard_rows=2))
    assert len(api.history) == 3  # initial, ours, theirs: nothing overwritten
    assert [name for name, _ in api.calls].count("create_tag") == 1


def test_the_token_never_appears_in_errors_logs_reprs_or_calls(token: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    # A client error that quotes the token, as a careless HTTP library might.
    api = RecordingHubApi(fail_on="create_commit", error_text=f"401 Unauthorized: bad credentials 'Bearer {token}'")
    publisher = _publisher(api)

    with pytest.raises(PublishError) as caught:
        publisher.publish(_release(train_rows=3, shard_rows=2))
    error = caught.value

    rendered = "".join(traceback.format_exception(error))
    assert "401 Unauthorized" in rendered and "<redacted>" in rendered
    assert error.__cause__ is None and error.__context__ is None
    for text in (
        str(error),
        repr(error),
        rendered,
        repr(publisher),
        repr(vars(publisher)),
        repr(api.calls),
        caplog.text,
    ):
        assert token not in text
    # A successful publish leaks nothing either.
    ok = _publisher(RecordingHubApi())
    result = ok.publish(_release(train_rows=3, shard_rows=2))
    assert token not in repr(result) and token not in caplog.text


def test_publish_folder_makes_a_model_repo_version(token: str, tmp_path: Path) -> None:
    api = RecordingHubApi()
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"weights")
    (folder / "config.json").write_text("{}")
    publisher = _publisher(api, repo_type="model", private=True)

    result = publisher.publish_folder(folder, "pocketworker-step-50", "---\nlicense: apache-2.0\n---\n# PocketWorker\n")

    assert {kwargs["repo_type"] for _, kwargs in api.calls} == {"model"}
    assert api.calls[0] == ("create_repo", {"repo_id": REPO, "repo_type": "model", "private": True, "exist_ok": True})
    assert api.commits()[0]["added"] == ["README.md", "config.json", "model.safetensors"]
    assert api.trees[result.revision]["README.md"].startswith(b"---\nlicense: apache-2.0")
    assert result.location == f"https://hub.example/{REPO}"


def test_without_a_token_the_hub_publisher_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with pytest.raises(PublishError, match="HF_TOKEN"):
        HfHubPublisher(REPO)


def test_publisher_from_config_picks_the_hub_only_with_repo_id_and_token(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    assert isinstance(publisher_from_config(REPO, tmp_path), LocalGitPublisher)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    assert isinstance(publisher_from_config(None, tmp_path), LocalGitPublisher)
    hub = publisher_from_config(REPO, tmp_path)
    assert isinstance(hub, HfHubPublisher) and hub.repo_id == REPO
    assert TOKEN not in repr(hub)


def test_the_stand_in_accepts_only_what_the_real_hfapi_accepts() -> None:
    for name in (
        "create_repo",
        "list_repo_refs",
        "list_repo_files",
        "list_repo_tree",
        "list_repo_commits",
        "create_commit",
        "create_tag",
    ):
        fake = inspect.signature(getattr(RecordingHubApi, name)).parameters
        real = inspect.signature(getattr(HfApi, name)).parameters
        assert set(fake) <= set(real), name
        assert all(real[p].kind == fake[p].kind for p in fake), name
