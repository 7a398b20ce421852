"""Fault corpus, an output whose blocking checks failed read by a later run. sft_shards checks its splits
(`no_env_shared_between_splits`, `no_duplicate_rows`, `parquet_schema`, all blocking). Dagster records the
materialization, then fails the step and skips the later steps of that run only. On `main` the failed
materialization stayed the latest and every later reader took it: a second `python -m pipelines.run` called
sft_shards "up to date" and went on to publish; hub_dataset materialized alone (the UI's "Materialize" on it)
pushed a release whose `sft` config held one env in both its train and test splits; training and evaluation read
the same splits (the training's own envs scored as held out).

What must hold: `why_stale` names the failed checks (so `pipelines.run` curates again, and stops there while a
check fails); every reader of the splits refuses before reading them, naming sft_shards, the checks and what to do;
with sft_shards curated again and its checks passing, the same publish goes on (guard).

A guard of another kind refused as it should but said the wrong thing (faults73's check, under
COWORKENV_ALLOW_PARTIAL): sft_shards curated from cap_a and cap_b, then cap_b's partition incomplete (a regeneration
that failed) and hub_dataset materialized with partial publishing allowed. The refusal is right (the release would
hold cap_b's SFT rows beside none of its envs), but on `main` it said cap_b's trajectories were "regenerated since",
not that cap_b is left out now as incomplete. Now each capability is named with what happened to it.

The same of a capability partition's steps: validated_envs failed its blocking acceptance_rate check, then
teacher_trajectories materialized alone ran the teacher in those envs, and the partition read as complete (its latest
run had succeeded). Now the step refuses to read them, and the partition is incomplete naming the check.

In process on small tables, an ephemeral instance: each sft_shards run is a real Dagster run of the real asset (its
curation answered by a stand-in), the partitions real stored tables; the publisher captures the release.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dagster as dg
import pyarrow as pa
import pytest

import assets.hub as hub_assets
import assets.sft as sft_assets
import assets.training as training_assets
import coworkenv.curate
import coworkenv.validate
import pipelines.freshness as freshness
from coworkenv import store
from coworkenv.examples import load_example
from coworkenv.store import stages
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import PartitionState

CAP = "cap_a"
_BASE = load_example("meeting_reschedule")
SPECS = [_BASE.model_copy(update={"context": f"{_BASE.context} (env {n})"}) for n in (1, 2)]
ENV_1, ENV_2 = (spec.id for spec in SPECS)  # an env's id is the hash of its spec


class Published(Exception):
    """The release reached the publisher: its configs' env ids by split are captured."""


def _partition(root: Path, capability: str = CAP) -> PartitionState:
    """The partition complete with two envs and one episode of each (stored as the chain stores them)."""
    specs = SPECS if capability == CAP else [s.model_copy(update={"context": f"{s.context} {capability}"}) for s in SPECS]
    rows = [{"env_id": spec.id, "capability": capability, "source": "procedural", "origin": "o",
             "spec_json": spec.model_dump_json()} for spec in specs]
    stored = {
        hub_assets.SPECS: stages.SPECS.store(stages.SPECS.table(rows), root, hub_assets.SPECS, capability),
        hub_assets.ENVS: stages.ENVS.store(stages.ENVS.table(rows), root, hub_assets.ENVS, capability),
        hub_assets.TRAJECTORIES: stages.TRAJECTORIES.store(stages.TRAJECTORIES.table([
            {"env_id": spec.id, "record_id": f"r-{spec.id}", "capability": capability, "teacher": "oracle"}
            for spec in specs]), root, hub_assets.TRAJECTORIES, capability, written_by="rollout"),
    }
    return PartitionState(capability, "", {k: f.path for k, f in stored.items()},
                          {k: f.content_hash for k, f in stored.items()})


def _curation(leaks: bool) -> Any:
    """Curation's stand-in: env 1 train and env 2 test; with `leaks`, env 1 in the test split too (a fault of
    curation the checks are there to catch)."""
    def curated(trajectories: pa.Table, **_: Any) -> SimpleNamespace:
        splits = {"train": [ENV_1], "test": [ENV_2, ENV_1] if leaks else [ENV_2]}
        return SimpleNamespace(report={}, splits={split: stages.SFT.table([
            {"env_id": env, "capability": CAP, "split": split, "messages": [{"role": "user", "content": env}],
             "tools": "[]"} for env in envs]) for split, envs in splits.items()})
    return curated


@pytest.fixture
def chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    settings = CoworkenvSettings(data_dir=str(tmp_path / "data"), eval_k=1)
    states = [_partition(settings.store_root)]
    monkeypatch.setattr(sft_assets, "bar_plot", lambda *_: dg.MetadataValue.md("-"))  # no matplotlib to import
    for module in (sft_assets, hub_assets, training_assets):
        monkeypatch.setattr(module, "complete_partitions", lambda *_: list(states))
    monkeypatch.setattr(freshness, "publishable_partitions", lambda *_: (list(states), ""))
    with dg.DagsterInstance.ephemeral() as instance:
        yield SimpleNamespace(settings=settings, instance=instance, monkeypatch=monkeypatch, states=states)


def _curate(chain: SimpleNamespace, leaks: bool) -> bool:
    """sft_shards materialized in a run of its own (as `pipelines.run` or the UI runs it): whether the run passed."""
    chain.monkeypatch.setattr(coworkenv.curate, "curate", _curation(leaks))
    result = dg.materialize([sft_assets.sft_shards], instance=chain.instance,
                            resources={"settings": chain.settings}, raise_on_error=False)
    return result.success


def _publish(chain: SimpleNamespace) -> dict[str, set[str]]:
    """hub_dataset materialized alone: the `sft` config's env ids by split as the publisher receives them."""
    captured: dict[str, set[str]] = {}

    class Capture:
        def publish(self, release: Any) -> Any:
            for split, tables in release.configs["sft"].items():
                captured[split] = {e for t in tables for e in t.column("env_id").to_pylist()}
            raise Published

    chain.monkeypatch.setattr(store, "publisher_from_config", lambda *_: Capture())
    chain.monkeypatch.setattr(hub_assets, "published_funnel", lambda *_: coworkenv.validate.Funnel())
    with pytest.raises(Published):
        hub_assets.hub_dataset(dg.build_asset_context(instance=chain.instance), chain.settings)
    return captured


def _assert_refused(message: str) -> None:
    assert "sft_shards" in message and "failed its blocking checks" in message, message
    assert f"no_env_shared_between_splits (shared_envs={ENV_1})" in message, message
    assert "nothing was read from them" in message and "Materialize sft_shards again" in message, message


def test_hub_dataset_refuses_sft_splits_whose_blocking_checks_failed(chain: SimpleNamespace) -> None:
    """On `main`: the release's `sft` config held env 1 in its train and test splits."""
    assert not _curate(chain, leaks=True)  # the run stopped at the failed check, its materialization recorded
    try:
        published = _publish(chain)
    except dg.Failure as refused:
        _assert_refused(str(refused))
    else:
        raise AssertionError(f"published SFT splits the checks refused: {published}")
    assert _curate(chain, leaks=False)  # guard: curated again, the checks pass, the same publish goes on
    assert _publish(chain) == {"train": {ENV_1}, "test": {ENV_2}}


def test_pipelines_run_does_not_take_sft_shards_whose_checks_failed_as_up_to_date(chain: SimpleNamespace) -> None:
    """On `main`: `why_stale` said "" (up to date), so a second `python -m pipelines.run` went on to hub_dataset."""
    assert not _curate(chain, leaks=True)
    reason = freshness.why_stale(chain.instance, "sft_shards", chain.settings)
    assert "no_env_shared_between_splits" in reason and "no_duplicate_rows" in reason, reason
    assert _curate(chain, leaks=False)
    assert freshness.why_stale(chain.instance, "sft_shards", chain.settings) == ""  # guard


def test_evaluation_refuses_sft_splits_whose_blocking_checks_failed(chain: SimpleNamespace) -> None:
    """On `main`: eval_report took env 1, an env of the train split, as held out. (The RL assets and the training
    read the splits through the same `current_sft_files`; not run here: their imports of torch take 45 s.)"""
    assert not _curate(chain, leaks=True)
    chain.instance.report_runless_asset_event(dg.AssetMaterialization(
        asset_key="pocketworker_checkpoint", metadata={
            "checkpoint": dg.MetadataValue.path(str(chain.settings.root / "checkpoints" / "c")),
            "model_tag": "tiny-v1", "trained_on": "v1", "steps": 1}))

    def went_on(version: str, env_ids: list[str], *_: Any) -> str:
        raise AssertionError(f"evaluated the envs {env_ids}, env 1 of the train split among them")

    chain.monkeypatch.setattr(training_assets, "eval_input_hash", went_on)
    with pytest.raises(dg.Failure) as refused:
        training_assets.eval_report(dg.build_asset_context(instance=chain.instance), chain.settings)
    _assert_refused(str(refused.value))


def test_a_partition_step_alone_does_not_read_an_output_whose_blocking_check_failed(tmp_path: Path) -> None:
    """validated_envs[cap] failed its blocking acceptance_rate check (its run stopped there, teacher_trajectories
    skipped); teacher_trajectories[cap] then materialized alone (the UI's "Materialize" on it). On `main` it ran the
    teacher in the refused envs and the partition read as complete (its latest run had succeeded), so sft_shards and
    hub_dataset took its envs and episodes into the release. The real chain, one spec."""
    from assets.envs import validated_envs
    from assets.specs import task_specs
    from assets.taxonomy import capability_taxonomy
    from assets.trajectories import teacher_trajectories
    from pipelines.staleness import partition_states, sync_partitions

    capability = "report_from_data"
    settings = CoworkenvSettings(data_dir=str(tmp_path / "data"), taxonomy_dir=str(Path(__file__).parents[2] / "taxonomy"),
                                 specs_per_capability=1, min_acceptance_rate=1.01)
    chain: list[dg.AssetsDefinition | dg.SourceAsset] = [capability_taxonomy, task_specs, validated_envs,
                                                         teacher_trajectories]
    with dg.instance_for_test() as instance:
        sync_partitions(instance, settings.taxonomy())
        first = dg.materialize(chain, selection=[task_specs, validated_envs, teacher_trajectories],
                               partition_key=capability, instance=instance, resources={"settings": settings},
                               raise_on_error=False)
        assert not first.success  # the check failed: validated_envs recorded, teacher_trajectories skipped
        alone = dg.materialize(chain, selection=[teacher_trajectories], partition_key=capability, instance=instance,
                               resources={"settings": settings}, raise_on_error=False)
        failures = [str(e.step_failure_data.error.message) for e in alone.all_events
                    if e.is_step_failure and e.step_failure_data and e.step_failure_data.error]
        assert not alone.success and store.latest(settings.store_root, hub_assets.TRAJECTORIES, capability) is None, \
            "teacher_trajectories ran in envs whose blocking check failed"
        assert any("validated_envs[report_from_data]" in f and "acceptance_rate" in f and "nothing was read" in f
                   for f in failures), failures
        state = next(s for s in partition_states(instance, settings.taxonomy(), settings) if s.capability == capability)
        assert "validated_envs: its blocking checks failed (acceptance_rate" in state.reason, state


def test_a_partial_release_names_the_capability_left_out_not_a_regeneration(chain: SimpleNamespace) -> None:
    """On `main`: "was not curated from the trajectories of cap_b as they are now: a partition was regenerated
    since, or sft_shards' last run failed part way ..., or the curation settings changed"."""
    chain.states.append(_partition(chain.settings.store_root, "cap_b"))
    assert _curate(chain, leaks=False)
    del chain.states[1]  # cap_b's regeneration failed: incomplete, left out under COWORKENV_ALLOW_PARTIAL
    chain.settings = CoworkenvSettings(data_dir=chain.settings.data_dir, allow_partial=True)
    with pytest.raises(dg.Failure) as refused:
        _publish(chain)
    message = str(refused.value)
    assert "it holds the SFT rows of cap_b, left out now (incomplete and COWORKENV_ALLOW_PARTIAL is set" in message, \
        message
    assert "regenerated" not in message.split(".")[0] and "Materialize sft_shards first" in message, message
