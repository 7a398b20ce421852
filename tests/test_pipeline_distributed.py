"""A real distributed run: the capability job on a 2-worker dask.distributed cluster makes the same data as in-process.

Two capability partitions (one spec each) run concurrently through the dagster-dask executor on a loopback
LocalCluster of two worker processes; their steps must run in those workers, and every materialized data
version (the content hash of the stored Parquet table) must equal the in-process run's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest
from distributed import Client, LocalCluster

from assets.envs import validated_envs
from assets.specs import task_specs
from assets.trajectories import teacher_trajectories
from pipelines.distributed import distributed_capability_job, run_partitions
from pipelines.executors import SCHEDULER_ENV, executor_from_env
from pipelines.jobs import PER_CAPABILITY, capability_job
from pipelines.partitions import CAPABILITY_PARTITIONS
from pipelines.resources import CoworkenvSettings
from tests.support import sqlite_nosync

pytestmark = pytest.mark.timeout(300)

PARTITIONS = ("inbox_triage_reply", "report_from_data")
TAXONOMY = Path(__file__).resolve().parents[1] / "taxonomy"
DATA_VERSION = "dagster/data_version"

Versions = dict[tuple[str, str], str]


def _data_versions(instance: dg.DagsterInstance) -> Versions:
    """(asset, partition) -> data version of the latest materialization, for every per-capability asset."""
    versions: Versions = {}
    for key in PER_CAPABILITY:
        for partition in PARTITIONS:
            records = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=dg.AssetKey(key), asset_partitions=[partition]), limit=1).records
            assert records, f"{key}[{partition}] was never materialized"
            materialization = records[0].asset_materialization
            assert materialization is not None and materialization.tags is not None
            versions[(key, partition)] = materialization.tags[DATA_VERSION]
    return versions


def _step_pids(instance: dg.DagsterInstance, run_ids: list[str]) -> set[int]:
    """Process ids that started the steps of these runs."""
    pids: set[int] = set()
    for run_id in run_ids:
        for record in instance.get_records_for_run(run_id, of_type=dg.DagsterEventType.STEP_START).records:
            event = record.event_log_entry.dagster_event
            assert event is not None and event.pid is not None
            pids.add(event.pid)
    return pids


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Client]:
    """Two loopback worker processes; their settings come from COWORKENV_* as on a real cluster."""
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "distributed"))
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(TAXONOMY))
    monkeypatch.setenv("COWORKENV_SPECS_PER_CAPABILITY", "1")
    monkeypatch.delenv("COWORKENV_LLM_URL", raising=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, worker_dashboard_address=None) as local, Client(local) as client:
        client.run(sqlite_nosync.install)  # the workers' instance storage commits without fsync (see its docstring)
        yield client


def test_distributed_run_matches_in_process(tmp_path: Path, cluster: Client) -> None:
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(CAPABILITY_PARTITIONS, list(PARTITIONS))
        runs = run_partitions(PARTITIONS, cluster.scheduler.address, instance)
        assert [r.partition for r in runs] == list(PARTITIONS)
        assert all(r.success for r in runs), runs
        distributed = _data_versions(instance)
        worker_pids = set(cluster.run(os.getpid).values())
        step_pids = _step_pids(instance, [r.run_id for r in runs])
    assert len(worker_pids) == 2
    assert step_pids <= worker_pids, "every step ran in a Dask worker, none in the coordinator"
    assert len(step_pids) == 2, "the two partitions' steps were spread over both workers"

    settings = CoworkenvSettings(data_dir=str(tmp_path / "in_process"), taxonomy_dir=str(TAXONOMY),
                                 specs_per_capability=1)
    defs = dg.Definitions(assets=[task_specs, validated_envs, teacher_trajectories], jobs=[capability_job],
                          resources={"settings": settings})
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(CAPABILITY_PARTITIONS, list(PARTITIONS))
        job = defs.resolve_job_def(capability_job.name)
        for partition in PARTITIONS:
            assert job.execute_in_process(instance=instance, partition_key=partition).success
        in_process = _data_versions(instance)
    assert distributed == in_process


def test_run_partitions_refuses_an_unregistered_partition() -> None:
    with dg.instance_for_test() as instance, pytest.raises(ValueError, match="not registered"):
        run_partitions(["no_such_capability"], "tcp://127.0.0.1:1", instance)


def test_scheduler_env_selects_the_dask_executor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    assert executor_from_env() is None, "unset: Dagster's default executor"
    monkeypatch.setenv(SCHEDULER_ENV, "tcp://10.0.0.5:8786")
    executor_def = executor_from_env()
    assert executor_def is not None and executor_def.name == "dask_cluster_from_env"
    assert distributed_capability_job().executor_def.name == "dask_cluster"
