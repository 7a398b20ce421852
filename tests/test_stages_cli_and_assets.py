"""The command line and the Dagster assets write the same stage files: for one capability, seed and count, `synth`,
`validate`, `rollout` and `curate` give the bytes (specs, envs, rejected) or the tables (trajectories without clock
readings, SFT rows per split) that task_specs, validated_envs, teacher_trajectories and sft_shards store."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
from typer.testing import CliRunner

from assets.envs import ENVS, REJECTED, validated_envs
from assets.sft import SFT, sft_shards
from assets.specs import SPECS, task_specs
from assets.taxonomy import capability_taxonomy
from assets.trajectories import TRAJECTORIES, teacher_trajectories
from coworkenv import store
from coworkenv.cli import app
from coworkenv.store import stages
from coworkenv.synth import load_taxonomy
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import sync_partitions
from tests.support.pipeline_child import ROOT, write_capability

pytestmark = pytest.mark.timeout(300)
CAPABILITY, COUNT, SEED = "report_from_data", 3, 4
CHAIN = [capability_taxonomy, task_specs, validated_envs, teacher_trajectories, sft_shards]


def _cli(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


def test_cli_and_assets_write_the_same_stage_files(tmp_path: Path) -> None:
    taxonomy = tmp_path / "taxonomy"
    taxonomy.mkdir()
    write_capability(taxonomy, load_taxonomy(ROOT / "taxonomy")[CAPABILITY], quota=COUNT)
    settings = CoworkenvSettings(data_dir=str(tmp_path / "data"), taxonomy_dir=str(taxonomy),  # type: ignore[arg-type]
                                 seed=SEED)
    with dg.instance_for_test() as instance:
        sync_partitions(instance, settings.taxonomy())
        for selection, partition in (([task_specs, validated_envs, teacher_trajectories], CAPABILITY),
                                     ([sft_shards], None)):
            assert dg.materialize(CHAIN, selection=selection, partition_key=partition, instance=instance,
                                  resources={"settings": settings}).success

    def stored(dataset: str, partition: str) -> Path:
        found = store.latest(settings.store_root, dataset, partition)
        assert found is not None
        return found.path

    out = tmp_path / "cli"
    _cli("synth", "--capability", CAPABILITY, "--n", str(COUNT), "--seed", str(SEED), "--taxonomy", str(taxonomy),
         "--out", str(out / "specs"))
    specs = out / "specs" / f"specs-{CAPABILITY}.parquet"
    assert specs.read_bytes() == stored(SPECS, CAPABILITY).read_bytes()

    _cli("validate", str(specs), "--out", str(out / "envs"))
    assert (out / "envs" / "accepted.parquet").read_bytes() == stored(ENVS, CAPABILITY).read_bytes()
    assert stages.ENVS.num_rows(out / "envs" / "accepted.parquet") > 0
    assert (out / "envs" / "rejected.parquet").read_bytes() == stored(REJECTED, CAPABILITY).read_bytes()

    _cli("rollout", str(out / "envs" / "accepted.parquet"), "--seed", str(SEED), "--out", str(out / "traj"))
    records = stages.read_trajectories(out / "traj")
    assert records and stages.stored_trajectories_table(records).equals(
        stages.TRAJECTORIES.read(stored(TRAJECTORIES, CAPABILITY)))

    # The pipeline keeps a larger test split than the CLI's default (settings.test_fraction): pass the same value.
    _cli("curate", str(out / "traj"), "--out", str(out / "sft"), "--test-fraction", str(settings.test_fraction))
    for split in ("train", "validation", "test"):
        asset_rows = stages.SFT.read(stored(SFT, split))
        shards = sorted((out / "sft").glob(f"{split}-*.parquet"))
        cli_rows = stages.read_sft(shards, split) if shards else stages.SFT_SCHEMA.empty_table()
        assert cli_rows.equals(asset_rows), split
    # Not a comparison of empty tables. Which split the few envs fall in is their request families' hash, which
    # moves whenever a generator's text does: count the rows of all splits.
    assert sum(stages.SFT.num_rows(stored(SFT, split)) for split in ("train", "validation", "test")) > 0
