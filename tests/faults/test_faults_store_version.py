"""Fault corpus, a dataset version the Dagster instance records but the store lost (deleted by hand, a cleanup, a
restore from an older backup). The partition reads as incomplete, naming the missing file; an asset that needs it
fails naming the LATEST pointer and what to do instead of reading something else; re-materializing writes the same
data version as before."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from assets.envs import validated_envs
from assets.specs import task_specs
from assets.taxonomy import capability_taxonomy
from coworkenv import store
from coworkenv.store import StoredTable
from coworkenv.synth import load_taxonomy
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import partition_state, sync_partitions
from tests.faults.harness import CAPABILITY
from tests.support.pipeline_child import ROOT, write_capability

pytestmark = pytest.mark.timeout(300)
CHAIN = [capability_taxonomy, task_specs, validated_envs]


def materialize(instance: dg.DagsterInstance, settings: CoworkenvSettings, *selection: dg.AssetsDefinition
                ) -> dg.ExecuteInProcessResult:
    """Materialize `selection` of the chain for CAPABILITY in process, failures returned rather than raised."""
    return dg.materialize(CHAIN, selection=list(selection), partition_key=CAPABILITY, instance=instance,
                          resources={"settings": settings}, raise_on_error=False)


def one_capability(tmp_path: Path) -> CoworkenvSettings:
    """Settings of a pipeline over a taxonomy of CAPABILITY alone, 2 specs, with its data under `tmp_path`."""
    taxonomy = tmp_path / "taxonomy"
    taxonomy.mkdir()
    write_capability(taxonomy, load_taxonomy(ROOT / "taxonomy")[CAPABILITY], quota=2)
    return CoworkenvSettings(data_dir=str(tmp_path / "data"), taxonomy_dir=str(taxonomy))


def failure_message(result: dg.ExecuteInProcessResult) -> str:
    """The message of a run's one failed step, with the causes Dagster shows under "Error occurred while ..."."""
    (failure,) = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    error, message = failure.step_failure_data.error, ""
    while error is not None:
        message, error = message + error.message, error.cause
    return message


def specs_and_envs(instance: dg.DagsterInstance, settings: CoworkenvSettings) -> tuple[StoredTable, StoredTable]:
    """Materialize task_specs and validated_envs of CAPABILITY; their stored files."""
    sync_partitions(instance, settings.taxonomy())
    assert materialize(instance, settings, task_specs, validated_envs).success
    specs = store.latest(settings.store_root, "task_specs", CAPABILITY)
    envs = store.latest(settings.store_root, "validated_envs", CAPABILITY)
    assert specs is not None and envs is not None
    return specs, envs


def test_a_stored_version_deleted_behind_dagsters_back_is_named_and_rebuilt_the_same(tmp_path: Path) -> None:
    settings = one_capability(tmp_path)
    capability = settings.taxonomy()[CAPABILITY]
    with dg.instance_for_test() as instance:
        specs, envs = specs_and_envs(instance, settings)
        specs.path.unlink()  # the version the instance recorded is gone from the store

        state = partition_state(instance, capability, settings)
        assert not state.complete and str(specs.path) in state.reason and "gone" in state.reason

        failed = materialize(instance, settings, validated_envs)
        assert not failed.success
        message = failure_message(failed)
        assert "LATEST" in message and specs.path.name in message and "re-materialize" in message, message
        assert store.latest(settings.store_root, "validated_envs", CAPABILITY) == envs  # nothing replaced

        assert materialize(instance, settings, task_specs, validated_envs).success
        assert store.latest(settings.store_root, "task_specs", CAPABILITY) == specs  # the same bytes, again
        assert store.latest(settings.store_root, "validated_envs", CAPABILITY) == envs
        assert partition_state(instance, capability, settings).reason == \
            "teacher_trajectories was never materialized"
