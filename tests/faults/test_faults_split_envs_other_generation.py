"""Fault corpus, the held-out (test) and train split envs read from an sft_shards materialization of another
generation than the capability partitions: eval_report, pocketworker_checkpoint's held-out check and the RL assets
take the env ids of the latest sft_shards splits and the specs of those ids from the partitions complete now. A
capability regenerated (edited in the taxonomy, its partition made again: other envs, other ids, an env's id being
the hash of its spec) and then eval_report materialized alone (the UI's "Materialize" on it, `dagster asset
materialize --select eval_report`), before sft_shards and the dataset are made again: on `main` the regenerated
capability's held-out envs were no longer found, and the report's figures covered the other capabilities only
without a word. The RL runs lost the capability's train envs the same way; with that capability the held-out one,
training was refused as if the test splits were empty ("generate more specs"), which they were not.

What must hold: each is refused before anything is evaluated or trained, naming sft_shards, the capability, what it
would have left out and what to do; with sft_shards curated again from the partitions as they are, the same eval
goes on with the held-out envs of every capability (guard).

In process on an ephemeral instance: the sft_shards runs are the real asset (its curation answered by a stand-in
splitting each capability's envs), the partitions real stored tables; each asset stops at the input hash it records
(the first thing after its envs are chosen), which captures the env ids it chose.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dagster as dg
import pyarrow as pa
import pytest

import assets.rl as rl_assets
import assets.sft as sft_assets
import assets.training as training_assets
import coworkenv.curate
from coworkenv.examples import load_example
from coworkenv.store import stages
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import PartitionState

SPECS, ENVS, TRAJECTORIES = "task_specs", "validated_envs", "teacher_trajectories"


class Chosen(Exception):
    """The asset chose its envs and went on to record what it is made from: their ids are captured."""

    def __init__(self, env_ids: list[str]) -> None:
        super().__init__(env_ids)
        self.env_ids = env_ids


NAMES: dict[str, str] = {}  # env id -> the name the cases give it


def _partition(root: Path, capability: str, names: list[str], generation: str) -> PartitionState:
    """`capability`'s partition complete with the envs `names` (specs of `generation`) and one episode of each."""
    base = load_example("meeting_reschedule")
    specs = [base.model_copy(update={"context": f"{base.context} ({name} of {capability}, {generation})"}) for name in names]
    NAMES.update({spec.id: name for spec, name in zip(specs, names, strict=True)})
    rows = [{"env_id": spec.id, "capability": capability, "source": "procedural", "origin": generation,
             "spec_json": spec.model_dump_json()} for spec in specs]
    episodes = [{"env_id": spec.id, "record_id": f"r-{spec.id}", "capability": capability, "teacher": "oracle"}
                for spec in specs]
    stored = {
        SPECS: stages.SPECS.store(stages.SPECS.table(rows), root, SPECS, capability),
        ENVS: stages.ENVS.store(stages.ENVS.table(rows), root, ENVS, capability),
        TRAJECTORIES: stages.TRAJECTORIES.store(stages.TRAJECTORIES.table(episodes), root, TRAJECTORIES, capability,
                                                written_by="rollout"),
    }
    return PartitionState(capability, "", {k: f.path for k, f in stored.items()},
                          {k: f.content_hash for k, f in stored.items()})


def _curated(trajectories: pa.Table, config: Any = None, **_: Any) -> SimpleNamespace:
    """Curation split by env: with a held-out capability, its envs test and the others' train; else each
    capability's first env (by name) train, the others test."""
    held_out = set(getattr(config, "heldout_capabilities", ()))
    rows: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    seen: set[str] = set()
    for env, capability in sorted(zip(trajectories.column("env_id").to_pylist(),
                                      trajectories.column("capability").to_pylist(), strict=True),
                                  key=lambda pair: NAMES[pair[0]]):
        split = "test" if capability in held_out or (not held_out and capability in seen) else "train"
        seen.add(capability)
        rows[split].append({"env_id": env, "capability": capability, "split": split, "messages": [], "tools": "[]"})
    return SimpleNamespace(splits={s: stages.SFT.table(r) for s, r in rows.items() if r}, report={})


class Pipeline:
    """Two capabilities' partitions on an ephemeral instance, sft_shards curated from them, a dataset and a
    checkpoint recorded as materialized."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_out: str = "") -> None:
        self.settings = CoworkenvSettings(data_dir=str(tmp_path / "data"), held_out_capability=held_out, eval_k=1)
        self.instance = dg.DagsterInstance.ephemeral()
        self.monkeypatch, self.root = monkeypatch, self.settings.store_root
        monkeypatch.setattr(coworkenv.curate, "curate", _curated)
        monkeypatch.setattr(sft_assets, "bar_plot", lambda *_: dg.MetadataValue.md("-"))  # no matplotlib to import
        self.states = [_partition(self.root, "cap_a", ["a-1", "a-2"], "g1"),
                       _partition(self.root, "cap_b", ["b-1", "b-2"], "g1")]
        for module in (sft_assets, training_assets, rl_assets):
            monkeypatch.setattr(module, "complete_partitions", lambda *_: list(self.states))
        self.curate()
        release = tmp_path / "data" / "hub" / "dataset"
        release.mkdir(parents=True)
        self._record("hub_dataset", {"version": "v1", "location": str(release)})
        self._record("pocketworker_checkpoint", {
            "checkpoint": dg.MetadataValue.path(str(tmp_path / "data" / "checkpoints" / "pocketworker-tiny-v1")),
            "model_tag": "tiny-v1-abc", "trained_on": "v1", "steps": 3})

    def _record(self, asset: str, metadata: Mapping[str, Any]) -> None:
        self.instance.report_runless_asset_event(dg.AssetMaterialization(asset_key=asset, metadata=metadata))

    def curate(self) -> None:
        """sft_shards materialized (the real asset), recorded as a run records it."""
        result = sft_assets.sft_shards(dg.build_asset_context(instance=self.instance), self.settings)
        assert isinstance(result, dg.MaterializeResult) and result.metadata is not None
        self._record(sft_assets.SFT, result.metadata)

    def regenerate(self, capability: str, env_ids: list[str]) -> None:
        """`capability`'s partition made again (the other partitions untouched), sft_shards not."""
        self.states = [s for s in self.states if s.capability != capability]
        self.states.append(_partition(self.root, capability, env_ids, "g2"))

    def chosen(self, asset: str) -> list[str]:
        """Materialize `asset` as the UI would, stopped once it chose its envs: their ids (a dg.Failure raises)."""
        def stop(*args: Any, **_: Any) -> str:
            raise Chosen(next((a for a in args if isinstance(a, list)), []))  # pocketworker_checkpoint: no env ids

        context = dg.build_asset_context(instance=self.instance)
        with pytest.raises(Chosen) as stopped:
            if asset == "eval_report":
                self.monkeypatch.setattr(training_assets, "eval_input_hash", stop)
                training_assets.eval_report(context, self.settings)
            elif asset == "pocketworker_checkpoint":
                self.monkeypatch.setattr(training_assets, "checkpoint_input_hash", stop)
                training_assets.pocketworker_checkpoint(context, self.settings)
            else:
                self.monkeypatch.setattr(rl_assets, "_sft_checkpoint", lambda *_: (self.root, "tiny-v1-abc", None))
                self.monkeypatch.setattr(rl_assets, "rl_input_hash", stop)
                list(getattr(rl_assets, asset)(context, self.settings) or [])
        return sorted(NAMES[env] for env in stopped.value.env_ids)


def _assert_refused(pipeline: Pipeline, asset: str, capability: str, left_out: str) -> None:
    try:
        chosen = pipeline.chosen(asset)
    except dg.Failure as refused:
        message = str(refused)
        assert "sft_shards" in message and "Materialize sft_shards first" in message, message
        assert f"trajectories of {capability}" in message and left_out in message, message
        assert "nothing was" in message, message
    else:
        raise AssertionError(f"{asset} went on with the envs {chosen}, without the regenerated {capability}'s")


def test_eval_report_refuses_test_splits_of_a_capability_regenerated_with_other_envs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cap_b made again with other envs: on `main` the report evaluated cap_a's held-out env only."""
    pipeline = Pipeline(tmp_path, monkeypatch)
    assert pipeline.chosen("eval_report") == ["a-2", "b-2"]
    pipeline.regenerate("cap_b", ["b-3", "b-4"])
    _assert_refused(pipeline, "eval_report", "cap_b", "drop out of the evaluation")


def test_training_is_not_refused_as_if_the_held_out_capability_had_no_envs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cap_b held out (all its envs test) and made again: on `main` pocketworker_checkpoint was refused with "the SFT
    test splits of the published dataset are empty ... generate more specs", which they were not."""
    pipeline = Pipeline(tmp_path, monkeypatch, held_out="cap_b")
    assert pipeline.chosen("pocketworker_checkpoint") == []  # went on to train
    pipeline.regenerate("cap_b", ["b-3", "b-4"])
    _assert_refused(pipeline, "pocketworker_checkpoint", "cap_b", "drop out of the evaluation")


@pytest.mark.parametrize("asset", ["rl_training", "rl_comparison"])
def test_rl_refuses_a_train_split_of_a_capability_regenerated_since(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    asset: str) -> None:
    """cap_a made again with other envs: on `main` the RL runs took cap_b's train env only."""
    pipeline = Pipeline(tmp_path, monkeypatch)
    assert pipeline.chosen(asset) == ["a-1", "b-1"]
    pipeline.regenerate("cap_a", ["a-3", "a-4"])
    _assert_refused(pipeline, asset, "cap_a", "drop out of the RL runs")


def test_guard_sft_shards_curated_again_the_eval_covers_every_capability(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: sft_shards materialized again after the regeneration, the eval goes on with both capabilities'
    held-out envs (the regenerated one's new env)."""
    pipeline = Pipeline(tmp_path, monkeypatch)
    pipeline.regenerate("cap_b", ["b-3", "b-4"])
    pipeline.curate()
    assert pipeline.chosen("eval_report") == ["a-2", "b-4"]
    assert pipeline.chosen("rl_training") == ["a-1", "b-3"]
