"""Fault corpus, other files published under a version name published already: a checkpoint trained again under its
`<config>-<data>-<config hash>` name (training is not bit for bit deterministic), a dataset whose card changed while
its data (which names it) did not. The local publisher said "already published; nothing to do" and kept the earlier
files (the new ones silently not published); the Hub publisher committed the new files on `main` as "Back to v1"
while the tag kept the earlier ones. A version's name must identify its content: the same bytes again publish
nothing; other bytes become a version of their own (`v1.v2`, its commit message and the log line saying which
content of the same name it replaces and which files differ), on both publishers alike, and readers asking for the
name (`newest_version`) get the newest. Each case runs against the local git repository and the Hub stand-in of
`tests/test_store_hf_hub.py`."""

from __future__ import annotations

import hashlib
import io
import logging
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from huggingface_hub import HfApi

from coworkenv.store import DatasetCardInfo, DatasetRelease, HfHubPublisher, LocalGitPublisher, PublishResult
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi

NAME = "v1"
CHECKPOINT = "tiny-v0123456789ab-89abcdef"
SHARD = "data/sft/train-00000-of-00001.parquet"


class TagRefusingHubApi(RecordingHubApi):
    """The stand-in, refusing a tag that exists as the Hub does (409 Conflict)."""

    def create_tag(self, repo_id: str, *, tag: str, tag_message: str, revision: str, repo_type: str) -> None:
        if tag in self.tags:
            self._record("create_tag", repo_id=repo_id, tag=tag, revision=revision, repo_type=repo_type,
                         tag_message=tag_message)
            raise RuntimeError(f"409 Conflict: tag {tag} already exists")
        super().create_tag(repo_id, tag=tag, tag_message=tag_message, revision=revision, repo_type=repo_type)


class Repo:
    """One publisher and what its repository holds: each tag's files, the branch's, and the commit messages."""

    def __init__(self, kind: str, where: Path) -> None:
        self.kind = kind
        if kind == "local":
            self.folder = where / "repo"
            self.publisher: LocalGitPublisher | HfHubPublisher = LocalGitPublisher(self.folder)
        else:
            self.api = TagRefusingHubApi()
            self.publisher = HfHubPublisher(REPO, api=cast(HfApi, self.api), repo_type="model")

    def file(self, ref: str, path: str) -> bytes:
        if self.kind == "local":
            return subprocess.run(["git", "-C", str(self.folder), "show", f"{ref}:{path}"], capture_output=True,
                                  check=True).stdout
        return self.api.trees[self.api.head if ref == "main" else self.api.tags[ref]][path]

    def tags(self) -> set[str]:
        if self.kind == "local":
            return set(self._git("tag", "--list").split())
        return set(self.api.tags)

    def messages(self) -> list[str]:
        """Commit messages on the branch, oldest first (the Hub's initial commit left out)."""
        if self.kind == "local":
            return [m.strip() for m in self._git("log", "--reverse", "--format=%B%x00", "main").split("\0")
                    if m.strip()]
        return [commit["commit_message"] for commit in self.api.commits()]

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.folder), *args], capture_output=True, text=True,
                              check=True).stdout


@pytest.fixture(params=["local", "hub_stand_in"])
def repo(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return Repo(str(request.param), tmp_path)


def _dataset(rows: int, description: str = "A release.") -> DatasetRelease:
    table = pa.table({"env_id": [f"env-{i}" for i in range(rows)], "text": [f"row {i}" for i in range(rows)]})
    return DatasetRelease(version=NAME, configs={"sft": {"train": [table]}},
                          card=DatasetCardInfo(pretty_name="same name", description=description))


def _checkpoint(where: Path, weights: bytes) -> Path:
    folder = where / "checkpoint"
    folder.mkdir(exist_ok=True)
    (folder / "model.safetensors").write_bytes(weights)
    (folder / "config.json").write_text('{"model_type": "qwen3"}\n')
    return folder


def _rows(data: bytes) -> int:
    return pq.read_table(io.BytesIO(data)).num_rows


def _replaced(repo: Repo, caplog: pytest.LogCaptureFixture, result: PublishResult, name: str, earlier: str,
              differing: str) -> None:
    """`result` is a version of its own, said so in its commit message and the log, and what the name reads as."""
    assert result.tag == f"{name}.v2" and result.tag in repo.tags()
    line = f"{result.tag} replaces {earlier}'s content for the same name {name} ("
    assert line in repo.messages()[-1] and f"{differing} differs" in repo.messages()[-1]
    assert any(line in record.getMessage() and f"{differing} differs" in record.getMessage()
               for record in caplog.records if record.levelno >= logging.WARNING)
    assert repo.publisher.newest_version(name) == result.tag


def test_other_data_under_a_published_name_is_a_version_of_its_own(repo: Repo,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="coworkenv.store")
    first = repo.publisher.publish(_dataset(10))
    second = repo.publisher.publish(_dataset(12))
    assert first.tag == NAME
    _replaced(repo, caplog, second, NAME, NAME, SHARD)
    assert _rows(repo.file(NAME, SHARD)) == 10  # the first content kept under its tag
    assert _rows(repo.file(second.tag, SHARD)) == _rows(repo.file("main", SHARD)) == 12
    commits = len(repo.messages())
    assert repo.publisher.publish(_dataset(12)) == second  # the newest content again: nothing to do
    assert len(repo.messages()) == commits
    # The first content again after other content: readers of the name got 12 rows; they get 10 again, as v1.v3.
    third = repo.publisher.publish(_dataset(10))
    assert third.tag == f"{NAME}.v3" and repo.publisher.newest_version(NAME) == third.tag
    assert _rows(repo.file("main", SHARD)) == 10
    assert f"{NAME}.v3 replaces {NAME}.v2's content" in repo.messages()[-1]


def test_a_card_only_change_is_a_version_of_its_own(repo: Repo, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="coworkenv.store")
    repo.publisher.publish(_dataset(10, "The first card."))
    second = repo.publisher.publish(_dataset(10, "The card, rewritten."))
    _replaced(repo, caplog, second, NAME, NAME, "README.md")
    assert SHARD not in repo.messages()[-1]  # the data is the same: only the card is named
    assert b"The first card." in repo.file(NAME, "README.md")
    assert b"The card, rewritten." in repo.file(second.tag, "README.md")
    assert b"The card, rewritten." in repo.file("main", "README.md")


def test_a_checkpoint_trained_again_under_its_name_is_a_version_of_its_own(
        repo: Repo, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="coworkenv.store")
    first = repo.publisher.publish_folder(_checkpoint(tmp_path, b"weights of the first training"), CHECKPOINT, "# c\n")
    second = repo.publisher.publish_folder(_checkpoint(tmp_path, b"weights of the second training"), CHECKPOINT,
                                           "# c\n")
    assert first.tag == CHECKPOINT
    _replaced(repo, caplog, second, CHECKPOINT, CHECKPOINT, "model.safetensors")
    assert repo.file(CHECKPOINT, "model.safetensors") == b"weights of the first training"
    assert repo.file(second.tag, "model.safetensors") == repo.file("main", "model.safetensors") == \
        b"weights of the second training"


@pytest.mark.parametrize("what", ["dataset", "checkpoint"])
def test_the_same_bytes_again_publish_nothing(repo: Repo, tmp_path: Path, what: str) -> None:
    """Regression guard (held on main): the same content under its name is "already published"."""
    def publish() -> PublishResult:
        if what == "dataset":
            return repo.publisher.publish(_dataset(10))
        return repo.publisher.publish_folder(_checkpoint(tmp_path, b"the same weights"), CHECKPOINT, "# c\n")

    first = publish()
    commits, tags = len(repo.messages()), repo.tags()
    assert publish() == first
    assert (len(repo.messages()), repo.tags()) == (commits, tags)


def test_concurrent_publishers_of_one_name_keep_both_contents(repo: Repo) -> None:
    """Two publishers of the same name with other data at once: each content ends under a tag of its own, and the
    branch holds the newest of the name. Locally they run in two threads (the folder's lock orders them); on the Hub
    stand-in the second publishes whole between the first one's commit and its tag (the Hub refuses a tag that
    exists)."""
    results: list[PublishResult] = []
    if repo.kind == "local":
        start = threading.Barrier(2)
        errors: list[BaseException] = []

        def publish(rows: int) -> None:
            start.wait()
            try:
                results.append(LocalGitPublisher(repo.folder).publish(_dataset(rows)))
            except BaseException as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=publish, args=(rows,)) for rows in (10, 12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
    else:
        api = repo.api
        create_tag: Callable[..., Any] = api.create_tag
        other = HfHubPublisher(REPO, api=cast(HfApi, api), repo_type="model")

        def the_other_publishes_first(repo_id: str, **kwargs: Any) -> None:
            api.create_tag = create_tag  # type: ignore[method-assign]
            results.append(other.publish(_dataset(12)))
            create_tag(repo_id, **kwargs)

        api.create_tag = the_other_publishes_first  # type: ignore[method-assign]
        results.append(repo.publisher.publish(_dataset(10)))
    assert sorted(result.tag for result in results) == [NAME, f"{NAME}.v2"]
    assert sorted(_rows(repo.file(result.tag, SHARD)) for result in results) == [10, 12]
    assert repo.publisher.newest_version(NAME) == f"{NAME}.v2"
    assert repo.file("main", SHARD) == repo.file(f"{NAME}.v2", SHARD)


def test_pocketworker_checkpoint_trained_again_under_its_name_publishes_a_version_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline's checkpoint asset (real local publish) run twice on the same data and config, each training
    leaving other weights (a tiny model saved with another seed): the second run's `model_tag`, which the
    evaluation and the RL assets take (and their freshness hashes), names a version holding its own weights and
    record; the first run's version keeps the first's. On `main` both runs named the first version."""
    pytest.importorskip("transformers")
    import dagster as dg

    import assets.training as training_assets
    import trainers
    from pipelines.resources import CoworkenvSettings
    from tests.faults.test_faults_checkpoint_trained_again_before_publish import SPEC, _train
    from tests.faults.test_faults_eval_checkpoint_retrained import _save

    monkeypatch.setattr(training_assets, "held_out_specs", lambda *_: [SPEC])
    monkeypatch.setattr(training_assets, "current_sft_files", lambda *_: {})
    monkeypatch.setattr(training_assets, "complete_partitions", lambda *_: [])
    monkeypatch.setattr(training_assets, "train_env_ids", lambda *_: {SPEC.id})
    (tmp_path / "release").mkdir()
    settings = CoworkenvSettings(data_dir=str(tmp_path / "data"), train_config="tiny")
    tags, records = [], []
    for seed, loss in ((0, 1.0), (1, 2.0)):
        model = _save(None, tmp_path / f"trained-{seed}", seed=seed)
        monkeypatch.setattr(trainers, "train_sft", lambda config, data_dir, out_dir, progress=None, model=model,
                            loss=loss: _train(model, out_dir, loss_last=loss))
        instance = dg.DagsterInstance.ephemeral()
        instance.report_runless_asset_event(dg.AssetMaterialization(asset_key="hub_dataset", metadata={
            "version": "v1", "location": dg.MetadataValue.path(str(tmp_path / "release"))}))
        result = training_assets.pocketworker_checkpoint(dg.build_asset_context(instance=instance), settings)
        tags.append(str(result.metadata["model_tag"]))  # type: ignore[index]
        assert result.data_version == dg.DataVersion(tags[-1])
        records.append(str(result.metadata["checkpoint_record"]))  # type: ignore[index]
    assert tags[1] == f"{tags[0]}.v2", tags
    repo = tmp_path / "data" / "hub" / "model"
    for tag, record in zip(tags, records, strict=True):
        published = subprocess.run(["git", "-C", str(repo), "show", f"{tag}:checkpoint_files.json"],
                                   capture_output=True, check=True).stdout
        assert hashlib.sha256(published).hexdigest() == record
    assert LocalGitPublisher(repo).newest_version(tags[0]) == tags[1]
