"""Publishing: refuses a dataset with an incomplete partition unless told to, records the funnel that
`Funnel.merge` gives, seeds specs like `coworkenv synth --seed`, and a version published again is what the
dataset folder holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from assets.envs import validated_envs
from assets.hub import hub_dataset
from assets.sft import sft_shards
from assets.specs import task_specs
from assets.taxonomy import capability_taxonomy
from assets.trajectories import teacher_trajectories
from coworkenv import store, validate
from coworkenv.cli import app
from coworkenv.store import stages
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import sync_partitions
from tests.support.pipeline_child import ROOT, write_capability

pytestmark = pytest.mark.timeout(300)

COMPLETE, MISSING = "report_from_data", "inbox_triage_reply"
CHAIN = [capability_taxonomy, task_specs, validated_envs, teacher_trajectories, sft_shards, hub_dataset]
PER_CAPABILITY = [task_specs, validated_envs, teacher_trajectories]


@pytest.fixture
def taxonomy_dir(tmp_path: Path) -> Path:
    from coworkenv.synth import load_taxonomy

    folder = tmp_path / "taxonomy"
    folder.mkdir()
    source = load_taxonomy(ROOT / "taxonomy")
    for cid in (COMPLETE, MISSING):
        write_capability(folder, source[cid], quota=2)
    return folder


@pytest.fixture
def instance() -> Iterator[dg.DagsterInstance]:
    with dg.instance_for_test() as found:
        yield found


def _settings(tmp_path: Path, taxonomy_dir: Path, **changes: object) -> CoworkenvSettings:
    return CoworkenvSettings(data_dir=str(tmp_path / "data"), taxonomy_dir=str(taxonomy_dir), **changes)  # type: ignore[arg-type]


def _materialize(instance: dg.DagsterInstance, settings: CoworkenvSettings, selection: list[dg.AssetsDefinition],
                 partition: str | None = None) -> dg.ExecuteInProcessResult:
    return dg.materialize(CHAIN, selection=selection, partition_key=partition, instance=instance,
                          resources={"settings": settings}, raise_on_error=False)


def test_publishing_refuses_an_incomplete_partition_unless_allowed(tmp_path: Path, taxonomy_dir: Path,
                                                                   instance: dg.DagsterInstance) -> None:
    settings = _settings(tmp_path, taxonomy_dir)
    sync_partitions(instance, settings.taxonomy())
    assert _materialize(instance, settings, PER_CAPABILITY, COMPLETE).success
    assert _materialize(instance, settings, [task_specs], MISSING).success  # killed after its first stage

    refused = _materialize(instance, settings, [sft_shards, hub_dataset])
    assert not refused.success
    failure = next(e for e in refused.all_events if e.is_step_failure)
    message = failure.step_failure_data.user_failure_data.description  # type: ignore[union-attr]
    assert MISSING in message and COMPLETE not in message and "--allow-partial" in message
    assert instance.get_latest_materialization_event(hub_dataset.key) is None

    partial = _settings(tmp_path, taxonomy_dir, allow_partial=True)
    assert _materialize(instance, partial, [sft_shards, hub_dataset]).success
    event = instance.get_latest_materialization_event(hub_dataset.key)
    assert event is not None and event.asset_materialization is not None
    location = Path(str(event.asset_materialization.metadata["location"].value))
    capabilities = {c for f in location.glob("data/specs/*.parquet")
                    for c in pq.read_table(f, columns=["capability"]).column(0).to_pylist()}
    assert capabilities == {COMPLETE}


def test_the_published_funnel_is_the_merge_of_the_partition_funnels(tmp_path: Path, taxonomy_dir: Path,
                                                                    instance: dg.DagsterInstance) -> None:
    settings = _settings(tmp_path, taxonomy_dir)
    sync_partitions(instance, settings.taxonomy())
    expected = validate.Funnel()
    for cid in (COMPLETE, MISSING):
        assert _materialize(instance, settings, PER_CAPABILITY, cid).success
        stored = store.latest(settings.store_root, "task_specs", cid)
        assert stored is not None
        candidates = validate.candidates_from_rows(stages.read_spec_rows(stored.path))
        expected = expected.merge(validate.validate_and_repair(candidates, max_rounds=settings.repair_rounds).funnel)
    assert _materialize(instance, settings, [sft_shards, hub_dataset]).success
    event = instance.get_latest_materialization_event(hub_dataset.key)
    assert event is not None and event.asset_materialization is not None
    published = event.asset_materialization.metadata["funnel"].value
    assert published == expected.as_dict()
    assert published["repair_rounds"] and published["by_capability"].keys() == {COMPLETE, MISSING}


def test_the_pipeline_seed_gives_the_specs_of_the_cli_seed(tmp_path: Path, taxonomy_dir: Path,
                                                          instance: dg.DagsterInstance) -> None:
    seed, n = 5, 2
    settings = _settings(tmp_path, taxonomy_dir, seed=seed, specs_per_capability=n)
    sync_partitions(instance, settings.taxonomy())
    assert _materialize(instance, settings, [task_specs], COMPLETE).success
    stored = store.latest(settings.store_root, "task_specs", COMPLETE)
    assert stored is not None
    pipeline = store.read_table(stored).select(["env_id", "spec_json"]).to_pylist()

    out = tmp_path / "cli"
    result = CliRunner().invoke(app, ["synth", "--out", str(out), "--capability", COMPLETE, "--n", str(n),
                                      "--seed", str(seed), "--taxonomy", str(taxonomy_dir)])
    assert result.exit_code == 0, result.output
    cli = pq.read_table(out / f"specs-{COMPLETE}.parquet").select(["env_id", "spec_json"]).to_pylist()
    assert pipeline == cli


def test_a_version_published_again_is_what_the_folder_holds(tmp_path: Path) -> None:
    publisher = store.LocalGitPublisher(tmp_path / "repo")
    folder = tmp_path / "model"
    folder.mkdir()
    for version, content in [("v1", "one"), ("v2", "two"), ("v1", "one")]:
        (folder / "weights.txt").write_text(content)
        extra = folder / "only-in-v2.txt"
        if version == "v2":
            extra.write_text("x")
        else:
            extra.unlink(missing_ok=True)
        publisher.publish_folder(folder, version, "card")
        assert (tmp_path / "repo" / "weights.txt").read_text() == content
        assert (tmp_path / "repo" / "only-in-v2.txt").exists() == (version == "v2")
    assert publisher.published_versions() == ["v1", "v2"]
