"""Fault corpus, a run executed on another machine, or in another container, that shares this Dagster instance: two
containers of one compose file with the project folder (and its `.dagster/`) on one volume, `dagster dev` in one and
`python -m pipelines.run` in the other; two machines with one Dagster home on a network folder, or one Postgres
instance.

A run records the pid of its process, which names a process only on the machine, and in the pid namespace, it runs
in. Here that pid is some other process or none: every check took the other machine's live run for one whose process
is gone. `python -m pipelines.run` and the taxonomy sensor marked it failed ("was left running by a process that is
gone") and freed its pool slots, then materialized its partition a second time beside it; a step of this machine's run
went on past it (and over its claim of the partition), mixing the two runs' files and pointers. A run now records
where its process is (host name and pid namespace, `coworkenv/process_place`); a run of another place is never taken
for dead here, and the messages name the place and what to do if that run is really gone. Guards: a run of this
machine left by a process that is gone (before a reboot too) is still marked failed, and a run recorded before the
place was (no tag) is checked as before.

On `main` every case failed: the other machine's run was marked failed or passed over."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import dagster as dg
import psutil
import pytest

from assets._metadata import one_run_at_a_time
from assets.specs import task_specs
from pipelines.run_guard import PID_TAG, STAMP_TAG, STARTED_TAG, claim_partition, owner_tags, start_stamp, wait_for_pool
from pipelines.staleness import sync_partitions
from tests.faults.harness import CAPABILITY
from tests.faults.test_faults_store_version import failure_message, materialize, one_capability

pytestmark = pytest.mark.skipif(start_stamp(os.getpid()) is None, reason="needs Linux /proc")
PLACE = "coworkenv/process_place"  # (named here: not on main)
OTHER_HOST = "worker-b"


def _other_place(kind: str) -> str:
    """Where another machine's process runs, as it records it: another host name, or (a container sharing this
    machine's host name) this host name in another pid namespace."""
    here_space = os.readlink("/proc/self/ns/pid")
    return f"{OTHER_HOST} {here_space}" if kind == "machine" else f"{os.uname().nodename} pid:[4026599999]"


def _theirs(kind: str = "machine") -> dict[str, str]:
    """The tags a process of another machine or container gives its run: its pid (here some process of this machine,
    this very one, or none), its start and stamp (their boot id)."""
    return {PID_TAG: str(os.getpid()), STARTED_TAG: "1700000000.000",
            STAMP_TAG: "8c1f0e52-0000-4000-8000-00000000beef:4242", PLACE: _other_place(kind)}


def _started(instance: dg.DagsterInstance, tags: dict[str, str], partition: str = CAPABILITY) -> dg.DagsterRun:
    run = dg.DagsterRun(job_name="capability_job", run_id=str(uuid.uuid4()), status=dg.DagsterRunStatus.STARTED,
                        tags={"dagster/partition": partition, **tags})
    instance.add_run(run)
    return run


def _status(instance: dg.DagsterInstance, run: dg.DagsterRun) -> dg.DagsterRunStatus:
    found = instance.get_run_by_id(run.run_id)
    assert found is not None
    return found.status


def partitions_run_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`pipelines.run` with its partitions' runs a stand-in that succeeds at once (and the stages after them left
    out): the partitions it runs, in order."""
    from pipelines import run as pipeline_run

    executed: list[str] = []

    def execute(_instance: dg.DagsterInstance, _job: dg.JobDefinition, **kwargs: object) -> SimpleNamespace:
        executed.append(str(kwargs.get("partition_key")))
        return SimpleNamespace(success=True)

    monkeypatch.setattr(pipeline_run, "_execute", execute)
    monkeypatch.setattr(pipeline_run, "_aggregates", lambda *_, **__: 0)
    monkeypatch.setattr(pipeline_run, "_print_locations", lambda *_, **__: None)
    return executed


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A Dagster home and data folder in tmp_path, the taxonomy of CAPABILITY alone, as `pipelines.run` reads them."""
    from pipelines.resources import CoworkenvSettings, env_var

    settings = one_capability(tmp_path)
    for name in CoworkenvSettings.model_fields:
        monkeypatch.delenv(env_var(name), raising=False)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COWORKENV_DATA_DIR", settings.data_dir)
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", settings.taxonomy_dir)
    monkeypatch.setenv("COWORKENV_HELD_OUT_CAPABILITY", "")
    yield tmp_path / "home"


@pytest.mark.parametrize("kind", ["machine", "container"])
def test_pipelines_run_leaves_a_run_of_another_machine_running_and_skips_its_partition(
        home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    """`python -m pipelines.run` on this machine while the other one's run materializes CAPABILITY. On `main` it said
    the run "was left running by a process that is gone", marked it failed and materialized the partition again."""
    from pipelines import run as pipeline_run

    executed = partitions_run_here(monkeypatch)
    with dg.DagsterInstance.get() as instance:
        theirs = _started(instance, _theirs(kind))
    assert pipeline_run.main(["--no-train"]) == 0
    out = capsys.readouterr().out
    with dg.DagsterInstance.get() as instance:
        assert _status(instance, theirs) == dg.DagsterRunStatus.STARTED, \
            f"the {kind}'s running run was marked failed by this one:\n{out}"
    assert executed == [], f"the partition the other {kind}'s run materializes was made again here:\n{out}"
    assert f"skipped: run {theirs.run_id} is materializing it now" in out, out
    if kind == "machine":
        assert f"on {OTHER_HOST} (another machine or container" in out, out


def test_a_run_of_this_machine_whose_process_is_gone_is_still_marked_failed(home: Path) -> None:
    """Guard (passes on `main` too): what the place must not hide. A run of this machine and pid namespace whose
    process is gone, one of before a reboot (another boot id), and one recorded before runs named their place."""
    from pipelines.run_guard import reap_dead_runs

    gone = subprocess.Popen(["true"])
    started = psutil.Process(gone.pid).create_time() if psutil.pid_exists(gone.pid) else 0.0
    stamp = start_stamp(gone.pid) or ""
    gone.wait()
    mine = owner_tags()
    with dg.DagsterInstance.get() as instance:
        dead = _started(instance, {**mine, PID_TAG: str(gone.pid), STARTED_TAG: f"{started:.3f}", STAMP_TAG: stamp})
        rebooted = _started(instance, {**mine, STAMP_TAG: "8c1f0e52-0000-4000-8000-00000000beef:4242"})
        untagged = _started(instance, {PID_TAG: str(gone.pid), STARTED_TAG: f"{started:.3f}", STAMP_TAG: stamp})
        alive = _started(instance, mine)
        reaped = {r.run_id for r in reap_dead_runs(instance)}
        assert reaped == {dead.run_id, rebooted.run_id, untagged.run_id}
        assert _status(instance, alive) == dg.DagsterRunStatus.STARTED


def test_the_taxonomy_sensor_leaves_a_run_of_another_machine_running(home: Path) -> None:
    """`dagster dev`'s taxonomy sensor on this machine: on `main` it marked the other machine's run failed and
    requested a second run of its partition."""
    from pipelines.resources import CoworkenvSettings
    from pipelines.sensors import taxonomy_sensor

    settings = CoworkenvSettings(data_dir=os.environ["COWORKENV_DATA_DIR"],
                                 taxonomy_dir=os.environ["COWORKENV_TAXONOMY_DIR"], held_out_capability="")
    with dg.DagsterInstance.get() as instance:
        sync_partitions(instance, settings.taxonomy())
        theirs = _started(instance, _theirs())
        context = dg.build_sensor_context(instance=instance, resources={"settings": settings})
        result = taxonomy_sensor(context)
        assert _status(instance, theirs) == dg.DagsterRunStatus.STARTED, "the sensor marked the other's run failed"
        requests = getattr(result, "run_requests", None) or []
        assert [r.partition_key for r in requests] == [], "the sensor requested a second run of the partition"


def test_a_step_stops_while_a_run_of_another_machine_materializes_its_partition(tmp_path: Path) -> None:
    """A materialization of task_specs here (the UI's "Materialize", or a run of this machine's `make run`) while
    the other machine's run, begun first, materializes the partition: on `main` it went on beside it."""
    settings = one_capability(tmp_path)
    with dg.instance_for_test() as instance:
        sync_partitions(instance, settings.taxonomy())
        theirs = _started(instance, _theirs())
        result = materialize(instance, settings, task_specs)
        assert not result.success, "this run materialized the partition the other machine's run is working on"
        message = failure_message(result)
        assert theirs.run_id in message and f"on {OTHER_HOST} (another machine or container" in message, message
        assert "nothing was written" in message and f"`python -m pipelines.run` on {OTHER_HOST}" in message, message
        assert not (settings.store_root / "task_specs").exists()


def test_a_claim_of_another_machines_run_holds_the_partition() -> None:
    """The other machine's run's step claimed the partition, then a run of this machine reaches it: on `main` this
    run's step found the claim's run "dead" and claimed the partition over it."""
    with dg.instance_for_test() as instance:
        theirs = _started(instance, _theirs())
        assert claim_partition(instance, theirs.run_id, CAPABILITY) is None  # its step went on, as on that machine
        mine = _started(instance, owner_tags())
        step = cast(dg.AssetExecutionContext,
                    SimpleNamespace(instance=instance, run_id=mine.run_id, partition_key=CAPABILITY))
        with pytest.raises(dg.Failure) as stopped:
            one_run_at_a_time(step, "validated_envs")
        assert theirs.run_id in str(stopped.value.description), stopped.value.description
        instance.report_run_failed(theirs, message="ended")  # it ended: its claim holds nothing (guard)
        one_run_at_a_time(step, "validated_envs")


def test_a_pool_slot_of_another_machines_run_is_not_freed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The llm pool's one slot held by the other machine's run (its LLM calls now): on `main` `wait_for_pool` freed
    it as a dead run's and this run went on, two runs over the pool's limit."""
    pool = "llm"
    with dg.instance_for_test() as instance:
        theirs = _started(instance, _theirs(), partition="other_cap")
        instance.event_log_storage.set_concurrency_slots(pool, 1)
        assert instance.event_log_storage.claim_concurrency_slot(pool, theirs.run_id, "task_specs").is_claimed
        said: list[str] = []

        class Waited(Exception):
            pass

        def say(line: str) -> None:
            said.append(line)
            raise Waited

        with pytest.raises(Waited):
            wait_for_pool(instance, pool, say, poll_s=0.01)
        assert theirs.run_id in said[0] and "waiting for a slot in pool 'llm'" in said[0], said
        assert _status(instance, theirs) == dg.DagsterRunStatus.STARTED




def _here() -> str:
    """Where this process runs, as a run records it: host name and pid namespace."""
    return f"{os.uname().nodename} {os.readlink('/proc/self/ns/pid')}"


def test_a_run_the_ui_launched_in_another_container_is_left_running(tmp_path: Path) -> None:
    """A run launched by the Dagster UI or the sensor (`dagster dev` in the other container): it has no pid tag, its
    run worker's pid is on its RUN_START event only, and its chain steps now record where that pid means a process.
    On `main` no step recorded it, and `reap_dead_runs` here looked for that pid on this machine: marked failed."""
    from pipelines.run_guard import reap_dead_runs

    settings = one_capability(tmp_path)
    with dg.instance_for_test() as instance:
        def launched(place: str) -> dg.DagsterRun:
            run = _started(instance, {}, partition="other_cap")
            event = dg.DagsterEvent(event_type_value=dg.DagsterEventType.RUN_START.value, job_name=run.job_name,
                                    pid=999_999_999)
            instance.report_dagster_event(event, run_id=run.run_id)
            instance.add_run_tags(run.run_id, {PLACE: place})  # what its first step recorded there
            return run

        theirs, ours = launched(_other_place("container")), launched(_here())
        assert {r.run_id for r in reap_dead_runs(instance)} == {ours.run_id}, \
            "the other container's run, launched by its UI, was marked failed here"
        assert _status(instance, theirs) == dg.DagsterRunStatus.STARTED
        sync_partitions(instance, settings.taxonomy())
        assert materialize(instance, settings, task_specs).success  # a run with no pid tag, as the UI launches
        (made,) = [r for r in instance.get_runs() if r.run_id not in (theirs.run_id, ours.run_id)]
        assert made.tags.get(PLACE) == _here(), f"its step did not record where it runs: {made.tags}"
