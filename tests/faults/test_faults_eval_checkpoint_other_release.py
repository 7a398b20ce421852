"""Fault corpus, a checkpoint trained on a release of an earlier sft_shards, evaluated on the test splits of the latest:
eval_report takes the held-out envs from the latest sft_shards splits (faults73: refused unless curated from the
partitions as they are now) and the checkpoint from pocketworker_checkpoint's latest materialization, whatever
release that one was trained on. sft_shards and hub_dataset are eager (the automation sensor makes them again when
their inputs change), the training is not: the held-out capability set (COWORKENV_HELD_OUT_CAPABILITY) or a
capability regenerated, sft_shards and the release made again by the sensor, then eval_report materialized alone (the
UI's "Materialize" on it). Each env's split is drawn from its id and the curation settings, so with another held-out
capability an env of the train split the checkpoint learned from is in a test split now: on `main` the report scored
it as held out (the SFT figures inflated by an env it was trained on), published beside the checkpoint as its eval.
pocketworker_checkpoint materialized alone after sft_shards was curated again, before the release was made again,
trained on the earlier release's train split while its held-out check read the latest test splits.

What must hold: both are refused before anything is trained or evaluated, naming the sft_shards versions, what going
on would do and what to materialize; with the release published and the checkpoint trained again, the same eval goes
on with the latest test splits (guard). A checkpoint recorded before checkpoints named their sft_shards version is
taken as it is (faults73's guard).

In process on an ephemeral instance, on faults73's `Pipeline`: sft_shards, hub_dataset and pocketworker_checkpoint are
the real assets (curation a stand-in splitting by env, the publisher a stand-in keeping nothing, the training a
stand-in returning at once); each asset stops at the input hash it records, which captures the env ids it chose.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dagster as dg
import pytest

import assets.hub as hub_assets
import assets.training as training_assets
import coworkenv.validate
import trainers
from coworkenv import store
from pipelines.resources import CoworkenvSettings
from tests.faults.test_faults_split_envs_other_generation import Pipeline

EVAL_HARM = "held-out scores of envs it was trained on (or miss held-out envs); nothing was evaluated or published"


class StandIns:
    """The publisher (dataset and model) and the SFT training, answering at once."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def publish(self, release: Any) -> SimpleNamespace:
        location = self.root / "hub" / "dataset"  # the local copy training reads
        location.mkdir(parents=True, exist_ok=True)
        return SimpleNamespace(location=str(location), revision="r", tag=release.version, files=[])

    def publish_folder(self, folder: Path, version: str, *_: Any) -> SimpleNamespace:
        return SimpleNamespace(location="local", tag=version)

    def train(self, config: Any, data: Path, out_dir: Path, progress: Any = None) -> SimpleNamespace:
        out_dir.mkdir(parents=True, exist_ok=True)
        curve = out_dir / "loss.png"
        curve.write_bytes(b"png")
        return SimpleNamespace(steps=3, examples=2, train_loss_first=1.0, train_loss_last=0.5, wall_s=0.1,
                               loss_curve=curve, to_dict=dict)


def _pipeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Pipeline:
    pipeline = Pipeline(tmp_path, monkeypatch)
    stand_ins = StandIns(Path(pipeline.settings.root))
    monkeypatch.setattr(hub_assets, "complete_partitions", lambda *_: list(pipeline.states))
    monkeypatch.setattr(hub_assets, "published_funnel", lambda *_: coworkenv.validate.Funnel())
    monkeypatch.setattr(store, "publisher_from_config", lambda *_, **__: stand_ins)
    monkeypatch.setitem(vars(trainers), "train_sft", stand_ins.train)  # not its lazy import (torch: seconds)
    monkeypatch.setattr(training_assets, "_trained_record", lambda *_: "record")
    monkeypatch.setattr(training_assets, "png_markdown", lambda *_: dg.MetadataValue.md("-"))
    return pipeline


def _materialize(pipeline: Pipeline, asset: Any) -> None:
    """`asset` (hub_dataset or pocketworker_checkpoint) materialized for real, recorded as a run records it."""
    result = asset(dg.build_asset_context(instance=pipeline.instance), pipeline.settings)
    assert isinstance(result, dg.MaterializeResult) and result.metadata is not None
    pipeline._record(asset.key.path[-1], result.metadata)


def _hold_out(pipeline: Pipeline, capability: str) -> None:
    """COWORKENV_HELD_OUT_CAPABILITY set; sft_shards and the release made again (the sensor), the training not."""
    pipeline.settings = CoworkenvSettings(**{**pipeline.settings.model_dump(), "held_out_capability": capability})
    pipeline.curate()
    _materialize(pipeline, hub_assets.hub_dataset)


def _assert_refused(pipeline: Pipeline, asset: str, trained: list[str], harm: str, then: str) -> None:
    try:
        chosen = pipeline.chosen(asset)
    except dg.Failure as refused:
        message = str(refused)
        assert "sft_shards version" in message and "sft_shards' latest materialization (version" in message, message
        assert harm in message and f"Materialize {then}" in message, message
    else:
        raise AssertionError(f"{asset} went on ({chosen or 'to train'}) from a release of an earlier sft_shards, "
                             f"whose train split is {trained}")


def test_eval_report_refuses_a_checkpoint_trained_before_the_held_out_capability_was_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cap_b held out after the training: on `main` the report scored b-1, which the checkpoint learned from, as held
    out (the held-out envs b-1, b-2)."""
    pipeline = _pipeline(tmp_path, monkeypatch)
    _materialize(pipeline, hub_assets.hub_dataset)
    _materialize(pipeline, training_assets.pocketworker_checkpoint)  # learned from the train split a-1, b-1
    assert pipeline.chosen("eval_report") == ["a-2", "b-2"]
    _hold_out(pipeline, "cap_b")
    _assert_refused(pipeline, "eval_report", ["a-1", "b-1"], EVAL_HARM,
                    "hub_dataset, then pocketworker_checkpoint and eval_report")


def test_eval_report_refuses_a_checkpoint_trained_before_a_capability_was_regenerated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cap_b regenerated after the training, sft_shards and the release made again: on `main` the report scored the
    checkpoint on b-4, of a generation of cap_b it never learned from, as the SFT's held-out figure."""
    pipeline = _pipeline(tmp_path, monkeypatch)
    _materialize(pipeline, hub_assets.hub_dataset)
    _materialize(pipeline, training_assets.pocketworker_checkpoint)
    pipeline.regenerate("cap_b", ["b-3", "b-4"])
    pipeline.curate()
    _materialize(pipeline, hub_assets.hub_dataset)
    _assert_refused(pipeline, "eval_report", ["a-1", "b-1"], EVAL_HARM,
                    "hub_dataset, then pocketworker_checkpoint and eval_report")


def test_training_refuses_a_release_of_an_earlier_sft_shards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """sft_shards curated again (cap_b held out), the release not made again yet: on `main` pocketworker_checkpoint
    trained on the earlier release's train split (a-1, b-1) while its held-out check read the latest test splits."""
    pipeline = _pipeline(tmp_path, monkeypatch)
    _materialize(pipeline, hub_assets.hub_dataset)
    pipeline.settings = CoworkenvSettings(**{**pipeline.settings.model_dump(), "held_out_capability": "cap_b"})
    pipeline.curate()
    _assert_refused(pipeline, "pocketworker_checkpoint", ["a-1", "b-1"],
                    "envs it learned from would be reported as held out (or held-out envs missed); nothing was trained",
                    "hub_dataset first, then pocketworker_checkpoint and eval_report")


def test_guard_checkpoint_trained_on_the_latest_release_is_evaluated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: the release published and the checkpoint trained again after cap_b was held out, the eval goes on with
    the latest test splits (every env of cap_b)."""
    pipeline = _pipeline(tmp_path, monkeypatch)
    _materialize(pipeline, hub_assets.hub_dataset)
    _materialize(pipeline, training_assets.pocketworker_checkpoint)
    _hold_out(pipeline, "cap_b")
    _materialize(pipeline, training_assets.pocketworker_checkpoint)
    assert pipeline.chosen("eval_report") == ["b-1", "b-2"]
