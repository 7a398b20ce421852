"""Fault corpus, a data folder that does not exist while the run history's does, met by the other ways a run
starts. faults44 made `python -m pipelines.run` refuse it (`COWORKENV_DATA_DIR='data' names .../b/data ..., which
does not exist, and the run history's data ... is in .../a/data`) before any generation; `dagster dev`'s taxonomy
sensor and `python -m pipelines.distributed` did not check. Measured on `main`: the sensor's tick asked for a run of
every capability partition (each would generate again, an LLM paid again, into the new folder), and
`pipelines.distributed` went past its checks to the scheduler. Now the sensor requests nothing and says why (its skip
reason and a warning in the daemon's log), and `pipelines.distributed` refuses with the same line (exit 2) before
reaching the scheduler. Guard: once the new folder is made on purpose, the sensor asks for the partitions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from pipelines.resources import CoworkenvSettings
from pipelines.staleness import DATA_DIR
from tests.support.pipeline_child import ROOT


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dg.DagsterInstance, Path]]:
    """A run history (one instance for the module: its storage costs seconds) whose partition report_from_data was
    written under `a/data`, and that folder."""
    where = tmp_path_factory.mktemp("history")
    (where / "a" / "data").mkdir(parents=True)
    (where / "home").mkdir()
    with dg.instance_for_test(temp_dir=str(where / "home")) as instance:
        instance.report_runless_asset_event(dg.AssetMaterialization(
            "task_specs", partition="report_from_data",
            metadata={"path": dg.MetadataValue.path(str(where / "a" / "data" / "store" / "x.parquet")),
                      DATA_DIR: dg.MetadataValue.path(str(where / "a" / "data"))}))
        yield instance, where / "a" / "data"


def test_the_sensor_requests_no_run_into_a_data_folder_that_does_not_exist(
        history: tuple[dg.DagsterInstance, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from assets.envs import validated_envs
    from assets.specs import task_specs
    from assets.trajectories import teacher_trajectories
    from pipelines.jobs import capability_job
    from pipelines.sensors import taxonomy_sensor

    instance, recorded = history
    monkeypatch.chdir(tmp_path)  # the run starts in another folder: COWORKENV_DATA_DIR=data names tmp_path/data
    settings = CoworkenvSettings(data_dir="data", taxonomy_dir=str(ROOT / "taxonomy"))
    defs = dg.Definitions(assets=[task_specs, validated_envs, teacher_trajectories], jobs=[capability_job], sensors=[taxonomy_sensor], resources={"settings": settings})

    def tick() -> dg.SensorExecutionData:
        with dg.build_sensor_context(instance=instance, instance_ref=instance.get_ref(), resources={"settings": settings}, definitions=defs,
                                     sensor_name="taxonomy_sensor") as context:
            return taxonomy_sensor.evaluate_tick(context)

    data = tick()
    assert not data.run_requests, f"main: {len(data.run_requests or [])} partitions generated again into the new folder"
    assert data.skip_message is not None and f"is in {recorded}" in data.skip_message, data.skip_message
    (tmp_path / "data").mkdir()  # a new data folder, made on purpose: generated there
    assert tick().run_requests


def test_distributed_refuses_a_data_folder_that_does_not_exist(history: tuple[dg.DagsterInstance, Path],
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from pipelines import distributed

    instance, recorded = history
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COWORKENV_DATA_DIR", "data")
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(ROOT / "taxonomy"))
    monkeypatch.setenv("DAGSTER_HOME", str(ROOT))  # the project's dagster.yaml: checked as it is
    monkeypatch.setattr(dg.DagsterInstance, "get", staticmethod(lambda: instance))
    monkeypatch.setattr(distributed, "check_dask_names", lambda flag: None)
    monkeypatch.setattr(distributed, "check_partitions", lambda partitions, instance: None)
    reached: list[str] = []
    monkeypatch.setattr("pipelines.executors.scheduler_reach_problem", lambda address: reached.append(address))
    code = distributed.main(["--scheduler", "tcp://127.0.0.1:8786", "report_from_data"])
    err = capsys.readouterr().err
    assert (code, reached) == (2, []), f"main: went on to the scheduler {reached}: {err}"
    assert f"is in {recorded}" in err and "nothing was generated" in err, err
