"""Fault corpus, an honest evaluation refused: a checkpoint trained on a release of an earlier sft_shards whose train
split held the same envs as the latest's, only the test splits having changed. faults74 refuses a checkpoint (and a
training) whose release publishes another sft_shards version than the latest, since an env of the train split it
learned from may be in a test split now. But sft_shards is curated again for reasons that leave the train split as it
is: the held-out capability (COWORKENV_HELD_OUT_CAPABILITY, every env of it in `test_heldout`) edited in the taxonomy
and regenerated, its partition made again; sft_shards and the release are made again by the automation sensor (both
eager), the training is not. Then eval_report materialized alone (the UI's "Materialize" on it): on `main` it was
refused ("an env of that train split may be in a test split now ... Materialize hub_dataset, then
pocketworker_checkpoint and eval_report"), so a user retrained a checkpoint that had learned from exactly the envs it
would learn from again, to evaluate it on held-out envs it never saw either way; pocketworker_checkpoint materialized
alone before the release was made again was refused the same way.

What must hold: the versions compared are content hashes of the rows, so what the harm depends on is compared
instead: which envs the train split held. sft_shards records the hash of each split's env ids, a release the one of
the train split it publishes, a checkpoint the one of the release it learned from; the same train envs are taken (the
latest test splits hold none of them: its blocking check `no_env_shared_between_splits` passed). Guards: a
non-held-out capability regenerated (its train env changed) is still refused, saying the train split holds other
envs; a checkpoint recorded before checkpoints named their train envs is refused as before (nothing to compare).

In process on an ephemeral instance, on faults74's stand-ins (faults73's `Pipeline`): sft_shards, hub_dataset and
pocketworker_checkpoint the real assets (curation a stand-in splitting by env: a held-out capability's envs test, the
others' train), each asset stopped at the input hash it records, which captures the env ids it chose.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

import assets.hub as hub_assets
import assets.training as training_assets
from tests.faults.test_faults_eval_checkpoint_other_release import (
    EVAL_HARM,
    Pipeline,
    _assert_refused,
    _hold_out,
    _materialize,
    _pipeline,
)

THEN = "hub_dataset, then pocketworker_checkpoint and eval_report"


def _trained_with_cap_b_held_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Pipeline:
    """cap_b held out (b-1, b-2 test; a-1, a-2 train), the release published and the checkpoint trained on it."""
    pipeline = _pipeline(tmp_path, monkeypatch)
    _hold_out(pipeline, "cap_b")
    _materialize(pipeline, training_assets.pocketworker_checkpoint)
    assert pipeline.chosen("eval_report") == ["b-1", "b-2"]
    return pipeline


def _went_on(pipeline: Pipeline, asset: str) -> list[str]:
    try:
        return pipeline.chosen(asset)
    except dg.Failure as refused:
        raise AssertionError(f"{asset} was refused though the train split holds the same envs (a-1, a-2) as the one "
                             f"the checkpoint learned from, only the held-out envs changed: {refused}") from None


def test_eval_report_goes_on_after_the_held_out_capability_was_regenerated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cap_b (held out) regenerated, sft_shards and the release made again: on `main` refused, to be retrained on
    the same train envs."""
    pipeline = _trained_with_cap_b_held_out(tmp_path, monkeypatch)
    pipeline.regenerate("cap_b", ["b-3", "b-4"])
    pipeline.curate()
    _materialize(pipeline, hub_assets.hub_dataset)
    assert _went_on(pipeline, "eval_report") == ["b-3", "b-4"]


def test_training_goes_on_on_a_release_whose_train_split_is_the_latest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cap_b (held out) regenerated and sft_shards curated again, the release not made again yet: on `main` the
    training was refused, though the release's train split is the latest's."""
    pipeline = _pipeline(tmp_path, monkeypatch)
    _hold_out(pipeline, "cap_b")
    pipeline.regenerate("cap_b", ["b-3", "b-4"])
    pipeline.curate()
    try:
        _materialize(pipeline, training_assets.pocketworker_checkpoint)
    except dg.Failure as refused:
        raise AssertionError(f"the training was refused though the release's train split holds the same envs (a-1, "
                             f"a-2) as the latest's, only the held-out envs changed: {refused}") from None
    assert _went_on(pipeline, "eval_report") == ["b-3", "b-4"]  # and its eval on the latest test splits


def test_guard_a_train_env_changed_is_still_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: cap_a (trained on) regenerated, sft_shards and the release made again: the train split holds other
    envs, the eval is refused saying so."""
    pipeline = _trained_with_cap_b_held_out(tmp_path, monkeypatch)
    pipeline.regenerate("cap_a", ["a-3", "a-4"])
    pipeline.curate()
    _materialize(pipeline, hub_assets.hub_dataset)
    _assert_refused(pipeline, "eval_report", ["a-1", "a-2"], EVAL_HARM, THEN)


def test_guard_a_checkpoint_recorded_before_train_envs_were_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: a checkpoint whose record names its sft_shards version but not its train envs (recorded before they
    were): nothing to compare, refused as before."""
    pipeline = _trained_with_cap_b_held_out(tmp_path, monkeypatch)
    event = pipeline.instance.get_latest_materialization_event(training_assets.pocketworker_checkpoint.key)
    assert event is not None and event.asset_materialization is not None
    pipeline._record("pocketworker_checkpoint", {k: v for k, v in event.asset_materialization.metadata.items()
                                                 if k != "sft_train_envs"})
    pipeline.regenerate("cap_b", ["b-3", "b-4"])
    pipeline.curate()
    _materialize(pipeline, hub_assets.hub_dataset)
    _assert_refused(pipeline, "eval_report", ["a-1", "a-2"], EVAL_HARM, THEN)
