"""Incremental re-generation: editing one capability's YAML regenerates exactly that capability's partitions.

Four capabilities of `taxonomy/` are copied (one YAML per capability, quota 2) into a temporary taxonomy folder
and materialized through the taxonomy sensor into a test Dagster instance; then the taxonomy is edited the way
a user would and the sensor, the runs it requests and the aggregates are checked.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow.parquet as pq
import pytest
import yaml

from assets.envs import validated_envs
from assets.hub import hub_dataset
from assets.sft import sft_shards
from assets.specs import task_specs
from assets.taxonomy import capability_taxonomy
from assets.trajectories import teacher_trajectories
from coworkenv import rollout, synth, validate
from pipelines.jobs import PER_CAPABILITY, capability_job
from pipelines.partitions import CAPABILITY_PARTITIONS
from pipelines.resources import CoworkenvSettings
from pipelines.sensors import taxonomy_sensor
from pipelines.staleness import stale_capabilities
from tests.support import sqlite_nosync

pytestmark = pytest.mark.timeout(300)
sqlite_nosync.install()  # the instances' SQLite commits without fsync (see its docstring)

CAPABILITIES = ("incident_investigate_fix", "inbox_triage_reply", "adapt_silent_change", "report_from_data")
EDITED = "inbox_triage_reply"
ADDED = "ticket_triage_update"
QUOTA = 1
SENSOR = "taxonomy_sensor"
KEYS = [dg.AssetKey(k) for k in PER_CAPABILITY]
DATA_VERSION = "dagster/data_version"
SOURCE = synth.load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")


@dataclass
class Work:
    """Which capabilities each stage of the library was called for (the generation work done)."""

    generated: Counter[str] = field(default_factory=Counter)
    validated: Counter[str] = field(default_factory=Counter)
    rolled_out: Counter[str] = field(default_factory=Counter)

    def clear(self) -> None:
        for counter in (self.generated, self.validated, self.rolled_out):
            counter.clear()


@dataclass(frozen=True)
class Tick:
    """What one sensor tick asked for, after the daemon dropped run keys it had already launched."""

    run_requests: list[dg.RunRequest]
    partition_requests: list[dg.AddDynamicPartitionsRequest | dg.DeleteDynamicPartitionsRequest]


@dataclass
class Pipeline:
    """A taxonomy folder, a data folder and a test instance, driven the way the sensor daemon drives them."""

    taxonomy_dir: Path
    settings: CoworkenvSettings
    defs: dg.Definitions
    instance: dg.DagsterInstance
    work: Work
    automation_cursor: Any = None

    def write_capability(self, cid: str, **changes: Any) -> None:
        data = SOURCE[cid].model_dump(mode="json")
        area = data.pop("area")
        data.update({"quota": QUOTA, **changes})
        (self.taxonomy_dir / f"{cid}.yaml").write_text(yaml.safe_dump({"area": area, "capabilities": [data]}))

    def remove_capability(self, cid: str) -> None:
        (self.taxonomy_dir / f"{cid}.yaml").unlink()

    def tick(self) -> Tick:
        """One sensor tick: evaluate, apply partition requests, drop run keys already launched (as the daemon does)."""
        with dg.build_sensor_context(instance=self.instance, instance_ref=self.instance.get_ref(), resources={"settings": self.settings},
                                     definitions=self.defs, sensor_name=SENSOR) as context:
            data = taxonomy_sensor.evaluate_tick(context)
        partition_requests = list(data.dynamic_partitions_requests or [])
        for request in partition_requests:
            if isinstance(request, dg.AddDynamicPartitionsRequest):
                self.instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
            else:
                for key in request.partition_keys:
                    self.instance.delete_dynamic_partition(request.partitions_def_name, key)
        fresh = [
            r for r in data.run_requests or []
            if not self.instance.get_runs(dg.RunsFilter(tags={"dagster/sensor_name": SENSOR,
                                                             "dagster/run_key": r.run_key or ""}))
        ]
        return Tick(fresh, partition_requests)

    def launch(self, requests: list[dg.RunRequest]) -> None:
        job = self.defs.resolve_job_def(capability_job.name)
        for request in requests:
            tags = {**request.tags, "dagster/sensor_name": SENSOR, "dagster/run_key": request.run_key or ""}
            job.execute_in_process(instance=self.instance, partition_key=request.partition_key, tags=tags)

    def aggregates(self) -> None:
        self.defs.resolve_job_def("aggregates").execute_in_process(instance=self.instance)

    def automation_requests(self) -> set[str]:
        """Assets the declarative-automation sensor would request now (advances its cursor)."""
        result = dg.evaluate_automation_conditions(defs=self.defs, instance=self.instance,
                                                   cursor=self.automation_cursor)
        self.automation_cursor = result.cursor
        return {r.key.to_user_string() for r in result.results if r.true_subset.size}

    def latest(self, key: dg.AssetKey, partition: str | None = None) -> dg.EventLogRecord:
        records = self.instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition] if partition else None), limit=1
        ).records
        assert records, f"{key.to_user_string()}[{partition}] was never materialized"
        return records[0]

    def materialized_since(self, storage_id: int) -> dict[str, set[str | None]]:
        """Partitions materialized per per-capability asset after `storage_id`."""
        return {
            key.to_user_string(): {
                r.partition_key for r in self.instance.fetch_materializations(
                    dg.AssetRecordsFilter(asset_key=key, after_storage_id=storage_id), limit=1000).records
            }
            for key in KEYS
        }

    def cursor(self) -> int:
        """The storage id of the newest event so far."""
        return self.instance.event_log_storage.get_maximum_record_id() or 0


def _data_version(record: dg.EventLogRecord) -> str:
    materialization = record.asset_materialization
    assert materialization is not None and materialization.tags is not None
    return materialization.tags[DATA_VERSION]


def _hub_capabilities(pipeline: Pipeline) -> Counter[str]:
    """Rows per capability of the specs config in the latest published dataset."""
    meta = pipeline.latest(hub_dataset.key).asset_materialization
    assert meta is not None
    files = sorted(Path(str(meta.metadata["location"].value)).glob("data/specs/*.parquet"))
    return Counter(c for f in files for c in pq.read_table(f).column("capability").to_pylist())


def _count_work(work: Work, monkeypatch: pytest.MonkeyPatch) -> None:
    """Count in `work` the generation stages of the library the assets call."""
    generate, validate_run, rollout_run = synth.generate_specs, validate.validate_and_repair, rollout.rollout_specs

    def counted_generate(cap: synth.Capability, n: int, seed: int) -> Any:
        work.generated[cap.id] += 1
        return generate(cap, n, seed)

    def counted_validate(candidates: list[validate.Candidate], **kwargs: Any) -> Any:
        work.validated.update({c.capability for c in candidates})
        return validate_run(candidates, **kwargs)

    def counted_rollout(specs: list[Any], teacher: Any, **kwargs: Any) -> Any:
        work.rolled_out.update({s.capability for s in specs})
        return rollout_run(specs, teacher, **kwargs)

    # The assets call the library through its module attributes, so patching the module counts their calls.
    monkeypatch.setattr(synth, "generate_specs", counted_generate)
    monkeypatch.setattr(validate, "validate_and_repair", counted_validate)
    monkeypatch.setattr(rollout, "rollout_specs", counted_rollout)


@contextmanager
def _opened(live: Path, work: Work) -> Iterator[Pipeline]:
    """The pipeline whose taxonomy folder, data folder and test instance are `live`'s `taxonomy/`, `data/`, `home/`."""
    taxonomy_dir = live / "taxonomy"
    settings = CoworkenvSettings(data_dir=str(live / "data"), taxonomy_dir=str(taxonomy_dir))
    defs = dg.Definitions(
        assets=[capability_taxonomy, task_specs, validated_envs, teacher_trajectories, sft_shards, hub_dataset],
        jobs=[capability_job, dg.define_asset_job("aggregates", selection=[sft_shards, hub_dataset])],
        sensors=[taxonomy_sensor],
        resources={"settings": settings},
    )
    with dg.instance_for_test(temp_dir=str(live / "home")) as instance:
        yield Pipeline(taxonomy_dir, settings, defs, instance, work)


@pytest.fixture(scope="module")
def materialized(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four capabilities materialized through the sensor (aggregates not yet), once: under `live/`, kept as it was
    in `pristine/`."""
    root = tmp_path_factory.mktemp("incremental")
    live = root / "live"
    for folder in ("taxonomy", "home"):
        (live / folder).mkdir(parents=True)
    work = Work()
    with pytest.MonkeyPatch.context() as monkeypatch, _opened(live, work) as p:
        _count_work(work, monkeypatch)
        for cid in CAPABILITIES:
            p.write_capability(cid)
        first = p.tick()
        assert sorted(r.partition_key or "" for r in first.run_requests) == sorted(CAPABILITIES)
        p.launch(first.run_requests)
        assert p.tick().run_requests == [], "nothing is stale right after materializing"
        assert dict(work.generated) == dict.fromkeys(CAPABILITIES, 1)
    shutil.copytree(live, root / "pristine", symlinks=True)
    return root


@pytest.fixture
def pipeline(materialized: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pipeline]:
    """`materialized` as it was (each test changes it: put back from `pristine/` at the same paths, which the
    instance's records of the outputs name); the generation work counted from here on."""
    live = materialized / "live"
    shutil.rmtree(live)
    shutil.copytree(materialized / "pristine", live, symlinks=True)
    work = Work()
    _count_work(work, monkeypatch)
    with _opened(live, work) as p:
        yield p


def test_editing_one_capability_regenerates_only_that_partition(pipeline: Pipeline) -> None:
    p = pipeline
    p.automation_requests()  # the automation sensor's first tick sets its cursor
    p.aggregates()
    assert p.automation_requests() == set(), "aggregates are up to date"
    before = {(k, c): p.latest(k, c) for k in KEYS for c in CAPABILITIES}
    sft_before = p.latest(sft_shards.key)
    cursor = p.cursor()
    runs_before = {r.dagster_run.run_id for r in p.instance.get_run_records()}

    p.write_capability(EDITED, quota=QUOTA + 1)
    assert stale_capabilities(p.instance, p.settings.taxonomy(), p.settings) == [EDITED]

    tick = p.tick()
    assert [r.partition_key for r in tick.run_requests] == [EDITED]
    assert not tick.partition_requests
    p.launch(tick.run_requests)

    # Run records: one new run, of the capability job, for the edited partition only.
    new_runs = [r.dagster_run for r in p.instance.get_run_records() if r.dagster_run.run_id not in runs_before]
    assert [(r.job_name, r.tags["dagster/partition"], r.tags["coworkenv/reason"]) for r in new_runs] == [
        (capability_job.name, EDITED, "task_specs: the capability or its generation settings changed")
    ]
    assert p.materialized_since(cursor) == {k.to_user_string(): {EDITED} for k in KEYS}
    assert dict(p.work.generated) == {EDITED: 1}
    assert dict(p.work.validated) == {EDITED: 1}
    assert dict(p.work.rolled_out) == {EDITED: 1}

    # The other partitions were not touched: same latest materialization, same data version.
    for (key, cid), record in before.items():
        after = p.latest(key, cid)
        if cid == EDITED:
            assert after.storage_id > record.storage_id
        else:
            assert after.storage_id == record.storage_id, f"{key.to_user_string()}[{cid}] was re-materialized"
            assert _data_version(after) == _data_version(record)
    assert _data_version(p.latest(task_specs.key, EDITED)) != _data_version(before[(task_specs.key, EDITED)])

    # Declarative automation wants the aggregates; they rebuild from stored partitions without regenerating.
    assert p.automation_requests() == {"sft_shards", "hub_dataset"}
    p.aggregates()
    assert dict(p.work.generated) == {EDITED: 1}, "aggregates must not regenerate other capabilities"
    assert _data_version(p.latest(sft_shards.key)) != _data_version(sft_before)
    assert _hub_capabilities(p) == {**dict.fromkeys(CAPABILITIES, QUOTA), EDITED: QUOTA + 1}
    assert p.tick().run_requests == []


def test_an_edit_reverted_and_repeated_is_regenerated_each_time(pipeline: Pipeline) -> None:
    # The daemon never launches a run key twice: A -> B -> A -> B must still give three runs.
    p = pipeline
    for quota in (QUOTA + 1, QUOTA, QUOTA + 1):
        p.write_capability(EDITED, quota=quota)
        tick = p.tick()
        assert [r.partition_key for r in tick.run_requests] == [EDITED], f"no run after setting quota={quota}"
        p.launch(tick.run_requests)
        assert stale_capabilities(p.instance, p.settings.taxonomy(), p.settings) == []
    assert dict(p.work.generated) == {EDITED: 3}


def test_added_capability_gets_a_partition_and_removed_one_is_retired(pipeline: Pipeline) -> None:
    p = pipeline
    removed = CAPABILITIES[0]
    p.write_capability(ADDED)
    p.remove_capability(removed)

    tick = p.tick()
    requests = {type(r): list(r.partition_keys) for r in tick.partition_requests}
    assert requests == {dg.AddDynamicPartitionsRequest: [ADDED], dg.DeleteDynamicPartitionsRequest: [removed]}
    assert all(r.partitions_def_name == CAPABILITY_PARTITIONS for r in tick.partition_requests)
    assert [r.partition_key for r in tick.run_requests] == [ADDED]
    assert tick.run_requests[0].tags["coworkenv/reason"] == "new capability"

    p.launch(tick.run_requests)
    p.aggregates()
    current = sorted({*CAPABILITIES, ADDED} - {removed})
    assert sorted(p.instance.get_dynamic_partitions(CAPABILITY_PARTITIONS)) == current
    assert dict(p.work.generated) == {ADDED: 1}
    assert _hub_capabilities(p) == dict.fromkeys(current, QUOTA), "the retired capability must leave the dataset"


def test_rerun_with_unchanged_inputs_writes_byte_identical_parquet(pipeline: Pipeline) -> None:
    p = pipeline
    cid = CAPABILITIES[1]
    before = {k: p.latest(k, cid) for k in KEYS}
    paths = {k: Path(str(r.asset_materialization.metadata["path"].value))  # type: ignore[union-attr]
             for k, r in before.items()}
    content = {k: path.read_bytes() for k, path in paths.items()}

    # Forced re-run of an up-to-date partition (as `python -m pipelines.run --all` does).
    p.defs.resolve_job_def(capability_job.name).execute_in_process(instance=p.instance, partition_key=cid)
    assert dict(p.work.generated) == {cid: 1}
    for key, record in before.items():
        after = p.latest(key, cid)
        assert after.storage_id > record.storage_id
        assert _data_version(after) == _data_version(record)
        meta = after.asset_materialization.metadata  # type: ignore[union-attr]
        assert Path(str(meta["path"].value)) == paths[key]
        assert paths[key].read_bytes() == content[key]
        assert sorted(paths[key].parent.glob("*.parquet")) == [paths[key]], "no second file for equal content"


def test_the_sensor_redoes_a_partition_left_incomplete_but_not_one_in_flight(pipeline: Pipeline) -> None:
    import os
    import uuid

    import psutil

    from pipelines.run_guard import PID_TAG, STARTED_TAG

    p = pipeline
    p.write_capability(EDITED, quota=QUOTA + 1)
    first = p.tick().run_requests
    assert [r.partition_key for r in first] == [EDITED]
    # The run dies after its first stage: only task_specs is materialized for the new definition.
    job = p.defs.resolve_job_def(capability_job.name)
    job.execute_in_process(instance=p.instance, partition_key=EDITED, asset_selection=[task_specs.key],
                           tags={"dagster/sensor_name": SENSOR, "dagster/run_key": first[0].run_key or ""})
    again = p.tick().run_requests
    assert [r.partition_key for r in again] == [EDITED]
    assert again[0].run_key != first[0].run_key
    assert again[0].tags["coworkenv/reason"] == "validated_envs: it is missing for the current task_specs"

    # A live run of the partition is in flight: no second run is requested for it.
    me = psutil.Process(os.getpid())
    running = dg.DagsterRun(job_name=capability_job.name, run_id=str(uuid.uuid4()),
                            status=dg.DagsterRunStatus.STARTED,
                            tags={"dagster/partition": EDITED, PID_TAG: str(me.pid), STARTED_TAG: f"{me.create_time():.3f}"})
    p.instance.add_run(running)
    assert p.tick().run_requests == []
    # Its process is gone: the sensor marks it failed and requests the partition again.
    p.instance.add_run(dg.DagsterRun(job_name=capability_job.name, run_id=str(uuid.uuid4()),
                                     status=dg.DagsterRunStatus.STARTED,
                                     tags={"dagster/partition": EDITED, PID_TAG: "999999999", STARTED_TAG: "1.0"}))
    p.instance.report_run_failed(running)
    last = p.tick().run_requests
    assert [r.partition_key for r in last] == [EDITED]
    p.launch(last)
    assert stale_capabilities(p.instance, p.settings.taxonomy(), p.settings) == []
