"""Fault corpus, a dataset published with its SFT config from another generation than its other configs: hub_dataset
takes the specs, envs and trajectories of the capability partitions complete now, and the SFT splits from the
latest sft_shards materialization, whatever trajectories that one was curated from. sft_shards writes one split
after another; a partition regenerated (a capability edited in the taxonomy) and then an sft_shards run that failed
between its splits (a full disk at its second split: the first split's file and pointer already moved) leave the
latest sft_shards record curated from the partition's earlier trajectories. hub_dataset materialized then (the UI's
"Materialize" on it, `dagster asset materialize --select hub_dataset`) pushed a version whose `sft` rows come from
trajectories its `trajectories` config no longer holds (envs it does not publish), as one release.

What must hold: the publish is refused, naming sft_shards and what to do, and nothing is pushed; with sft_shards
curated again from the partitions as they are, the same publish goes on (guard).

In process on small tables, an ephemeral instance: the sft_shards runs are the real asset (its curation answered
by a stand-in, the full disk an ENOSPC from the second split's store); the publisher captures the release.
"""

from __future__ import annotations

import errno
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dagster as dg
import pyarrow as pa
import pytest

import assets.hub as hub_assets
import assets.sft as sft_assets
import coworkenv.curate
import coworkenv.validate
from coworkenv import store
from coworkenv.store import stages
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import PartitionState

CAP = "cap_a"


class Published(Exception):
    """The release reached the publisher: its configs' env ids are captured."""


def _trajectories(root: Path, env: str) -> PartitionState:
    """The partition complete with one env, `env`, and one episode of it (stored as the chain stores them)."""
    rows = {"env_id": env, "capability": CAP, "source": "procedural", "origin": "o", "spec_json": "{}"}
    stored = {
        hub_assets.SPECS: stages.SPECS.store(stages.SPECS.table([rows]), root, hub_assets.SPECS, CAP),
        hub_assets.ENVS: stages.ENVS.store(stages.ENVS.table([rows]), root, hub_assets.ENVS, CAP),
        hub_assets.TRAJECTORIES: stages.TRAJECTORIES.store(stages.TRAJECTORIES.table([{
            "env_id": env, "record_id": f"r-{env}", "capability": CAP, "teacher": "oracle"}]), root,
            hub_assets.TRAJECTORIES, CAP, written_by="rollout"),
    }
    return PartitionState(CAP, "", {k: f.path for k, f in stored.items()}, {k: f.content_hash for k, f in stored.items()})


def _curated(trajectories: pa.Table, **_: Any) -> SimpleNamespace:
    """What curation gives for one env's episodes: a train and a test split (one row each) of that env."""
    env = trajectories.column("env_id")[0].as_py()
    splits = {split: stages.SFT.table([{"env_id": env, "capability": CAP, "split": split, "messages": [],
                                        "tools": "[]"}]) for split in ("test", "train")}
    return SimpleNamespace(splits=splits, report={})


def _materialize_sft(instance: dg.DagsterInstance, settings: CoworkenvSettings) -> None:
    """Run sft_shards and record its materialization on `instance`, as a run does."""
    result = sft_assets.sft_shards(dg.build_asset_context(instance=instance), settings)
    assert isinstance(result, dg.MaterializeResult) and result.metadata is not None
    instance.report_runless_asset_event(dg.AssetMaterialization(asset_key=sft_assets.SFT, metadata=result.metadata))


def _publish(instance: dg.DagsterInstance, settings: CoworkenvSettings, monkeypatch: pytest.MonkeyPatch) -> dict[str, set[str]]:
    """hub_dataset's release as the publisher receives it: env ids by config."""
    captured: dict[str, set[str]] = {}

    class Capture:
        def publish(self, release: Any) -> Any:
            for config, splits in release.configs.items():
                captured[config] = {e for tables in splits.values() for t in tables
                                    for e in t.column("env_id").to_pylist()}
            raise Published

    monkeypatch.setattr(store, "publisher_from_config", lambda *_: Capture())
    monkeypatch.setattr(hub_assets, "published_funnel", lambda *_: coworkenv.validate.Funnel())
    with pytest.raises(Published):
        hub_assets.hub_dataset(dg.build_asset_context(instance=instance), settings)
    return captured


def test_hub_dataset_refuses_sft_shards_curated_from_trajectories_the_partitions_no_longer_hold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = CoworkenvSettings(data_dir=str(tmp_path / "data"))
    root, instance = settings.store_root, dg.DagsterInstance.ephemeral()
    monkeypatch.setattr(coworkenv.curate, "curate", _curated)
    monkeypatch.setattr(sft_assets, "bar_plot", lambda *_: dg.MetadataValue.md("-"))  # no matplotlib to import
    states = [_trajectories(root, "env-old")]
    for module in (sft_assets, hub_assets):
        monkeypatch.setattr(module, "complete_partitions", lambda *_: states)
    _materialize_sft(instance, settings)

    states[:] = [_trajectories(root, "env-new")]  # the partition regenerated
    real_store, stored = stages.SFT.store, list[store.StoredTable]()

    def full_at_second_split(self: stages.Stage, table: pa.Table, *args: Any, **kwargs: Any) -> store.StoredTable:
        if stored:
            raise OSError(errno.ENOSPC, "No space left on device")
        stored.append(real_store(table, *args, **kwargs))
        return stored[-1]

    with monkeypatch.context() as patch:
        patch.setattr(stages.Stage, "store", full_at_second_split)
        with pytest.raises(OSError, match="No space left"):
            sft_assets.sft_shards(dg.build_asset_context(instance=instance), settings)
    assert len(stored) == 1  # the first split's file and pointer moved; the second's did not

    try:
        published = _publish(instance, settings, monkeypatch)
    except dg.Failure as refused:
        message = str(refused)
        assert "sft_shards" in message and "materialize sft_shards" in message.lower(), message
        assert CAP in message and "nothing was published" in message, message
    else:
        raise AssertionError(f"published SFT rows of another generation than its trajectories: {published}")

    _materialize_sft(instance, settings)  # guard: curated again from the partition as it is, the publish goes on
    published = _publish(instance, settings, monkeypatch)
    assert published["sft"] == published["trajectories"] == {"env-new"}, published
