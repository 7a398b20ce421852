"""Fault corpus, the checkpoint pocketworker_checkpoint publishes trained again before its publish copies it: a
second training saving into the same folder (a second pipeline run in another DAGSTER_HOME sharing the data folder,
`coworkenv train sft --out` by hand) after this run's training ended. The second training puts a whole,
self-consistent checkpoint in place (its own record of its files), so no check of the folder against its own record
can see it. On `main` the asset checked the folder, took its record's hash, then the publisher copied the folder
again: the model repository's version held the second training's weights under this run's card (its loss, its
steps) and a materialization whose `checkpoint_record` names the first training's record.

Each case runs the real asset on an ephemeral instance with a real local publish; the training is a real save of a
tiny checkpoint (saved once per module) put in place by `replace_dir`, as `train_sft` ends, with its `sft_run.json`
holding the result the asset is handed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

pytest.importorskip("transformers")

import assets.training as training_assets
import trainers
from coworkenv import store
from coworkenv.examples import load_example
from pipelines.resources import CoworkenvSettings
from tests.faults.test_faults_eval_checkpoint_retrained import _save  # a tiny checkpoint saved as a training does
from trainers.checkpoint_files import checkpoint_staging, replace_dir
from trainers.config import load_sft_config
from trainers.sft import LOSS_CURVE, RUN_METADATA, TRAINING_LOG, SFTResult

SPEC = load_example("meeting_reschedule")


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two tiny models of the same shapes, other weights: what two trainings of one config leave."""
    root = tmp_path_factory.mktemp("weights")
    return _save(None, root / "first", seed=0), _save(None, root / "second", seed=1)


def _train(model: Path, out_dir: Path, loss_last: float) -> SFTResult:
    """Put a finished training in place at `out_dir` as `train_sft` does: the weights of `model`, the run's record."""
    result = SFTResult(out_dir=out_dir, steps=3, train_loss_first=5.0, train_loss_last=loss_last, wall_s=1.0,
                       config=load_sft_config("tiny").to_dict(), data_files=[], examples=4, examples_truncated=0,
                       loss_curve=out_dir / LOSS_CURVE, training_log=out_dir / TRAINING_LOG)
    with checkpoint_staging(out_dir) as staging:
        shutil.copytree(model, staging, dirs_exist_ok=True)
        (staging / "checkpoint_files.json").unlink()
        (staging / LOSS_CURVE).write_bytes(b"\x89PNG\r\n\x1a\n")
        (staging / TRAINING_LOG).write_text(json.dumps({"config": "tiny", "steps": []}))
        (staging / RUN_METADATA).write_text(json.dumps(result.to_dict()))
        replace_dir(staging, out_dir)
    return result


def _materialize(tmp_path: Path, weights: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
                 again: str | None) -> tuple[dg.MaterializeResult, Path, Path]:
    """pocketworker_checkpoint, with a second training saving into its folder `again` ("after training": once this
    run's training has ended; "before publish": once the asset has checked the folder); (result, repo, folder)."""
    first, second = weights
    data = tmp_path / "data"
    release = tmp_path / "release"
    release.mkdir()
    instance = dg.DagsterInstance.ephemeral()
    instance.report_runless_asset_event(dg.AssetMaterialization(
        asset_key="hub_dataset", metadata={"version": "v1", "location": dg.MetadataValue.path(str(release))}))
    monkeypatch.setattr(training_assets, "held_out_specs", lambda *_: [SPEC])
    monkeypatch.setattr(training_assets, "current_sft_files", lambda *_: {})
    monkeypatch.setattr(training_assets, "complete_partitions", lambda *_: [])
    monkeypatch.setattr(training_assets, "train_env_ids", lambda *_: {SPEC.id})

    def train_sft(config: Any, data_dir: Path, out_dir: Path, progress: Any = None) -> SFTResult:
        result = _train(first, out_dir, loss_last=1.0)
        if again == "after training":
            _train(second, out_dir, loss_last=2.0)
        return result

    monkeypatch.setattr(trainers, "train_sft", train_sft)
    publisher_from_config = store.publisher_from_config

    def publisher_then_train(*args: Any, **kwargs: Any) -> Any:
        publisher = publisher_from_config(*args, **kwargs)
        if again == "before publish":  # after the asset's check and record, before the publisher copies the folder
            _train(second, next((data / "checkpoints").glob("pocketworker-*")), loss_last=2.0)
        return publisher

    monkeypatch.setattr(store, "publisher_from_config", publisher_then_train)
    settings = CoworkenvSettings(data_dir=str(data), train_config="tiny")
    result = training_assets.pocketworker_checkpoint(dg.build_asset_context(instance=instance), settings)
    folder = Path(str(result.metadata["checkpoint"].value))  # type: ignore[union-attr]
    return result, data / "hub" / "model", folder


def _git_show(repo: Path, what: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), "show", what], check=True, capture_output=True).stdout


def _tags(repo: Path) -> list[str]:
    if not repo.exists():
        return []
    return subprocess.run(["git", "-C", str(repo), "tag"], check=True, capture_output=True,
                          text=True).stdout.split()


@pytest.mark.parametrize("again", ["after training", "before publish"])
def test_a_checkpoint_trained_again_before_its_publish_is_not_published_as_this_training(
        tmp_path: Path, weights: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, again: str) -> None:
    """A second training saved into the folder once this run's training ended, or after the asset's check: on `main`
    the version published held the second training's weights and run record under this run's card and a
    `checkpoint_record` naming another record. Refused, naming what to do, nothing published; or, if published, the
    version is this run's training and the recorded record is the published one."""
    try:
        result, repo, _ = _materialize(tmp_path, weights, monkeypatch, again)
    except (dg.Failure, store.PublishError) as error:
        text = str(getattr(error, "description", None) or error)
        assert "trained or copied again" in text and "nothing was published" in text, text
        assert ("pocketworker_checkpoint" in text) == isinstance(error, dg.Failure), text
        assert _tags(tmp_path / "data" / "hub" / "model") == []
        return
    tag = str(result.metadata["model_tag"])  # type: ignore[index]
    record = _git_show(repo, f"{tag}:checkpoint_files.json")
    assert hashlib.sha256(record).hexdigest() == str(result.metadata["checkpoint_record"])  # type: ignore[index]
    assert json.loads(_git_show(repo, f"{tag}:{RUN_METADATA}"))["train_loss_last"] == 1.0


def test_guard_a_checkpoint_left_alone_is_published_with_its_record(
        tmp_path: Path, weights: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: nothing trained in between; the version is the training, its record the one the metadata names."""
    result, repo, folder = _materialize(tmp_path, weights, monkeypatch, None)
    tag = str(result.metadata["model_tag"])  # type: ignore[index]
    record = _git_show(repo, f"{tag}:checkpoint_files.json")
    assert record == (folder / "checkpoint_files.json").read_bytes()
    assert hashlib.sha256(record).hexdigest() == str(result.metadata["checkpoint_record"])  # type: ignore[index]
    assert json.loads(_git_show(repo, f"{tag}:{RUN_METADATA}"))["train_loss_last"] == 1.0
