"""Fault corpus, a run of a machine gone for good holding its partition: two machines (or containers) share one
Dagster instance, one of them is removed (its volume deleted, the VM destroyed) while its run materializes a
partition. Its run is never marked ended (no process of its place is left to do so) and is never taken for dead here
(faults72: its pid names no process of this machine), so it holds the partition: every `python -m pipelines.run`
skips the partition, and the stages after it stop on the incomplete partition, run after run. On `main` the skip line
only said that the run "is materializing it now on worker-b (another machine or container sharing this Dagster
instance)": nothing said what to do were that machine gone.

What must hold: the line names the run and the way out (mark it failed: force its termination in the Dagster UI);
once it is force-terminated, the next `pipelines.run` materializes the partition (guard).

In process, on faults72's helpers (the other machine's run carries the tags its process records there); the
partition's run a stand-in that succeeds at once."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from tests.faults.test_faults_runs_of_another_machine import OTHER_HOST, _started, _theirs, home, partitions_run_here

__all__ = ["home"]  # the fixture, used by name


def test_pipelines_run_says_how_to_free_a_partition_held_by_a_machine_gone_for_good(
        home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from pipelines import run as pipeline_run

    executed = partitions_run_here(monkeypatch)
    with dg.DagsterInstance.get() as instance:
        theirs = _started(instance, _theirs("machine"))
    assert pipeline_run.main(["--no-train"]) == 0
    out = capsys.readouterr().out
    assert executed == [] and f"skipped: run {theirs.run_id} is materializing it now on {OTHER_HOST}" in out, out
    assert "gone for good" in out and "force its termination in the Dagster UI" in out, \
        f"the skip line does not say how to free the partition if {OTHER_HOST} is gone:\n{out}"
    assert theirs.run_id[:8] in out.split("skipped:")[1].split("force its termination")[1], out

    # Guard: the way out works: the run force-terminated (marked canceled), the partition is materialized here.
    with dg.DagsterInstance.get() as instance:
        instance.report_run_canceled(theirs)
    assert pipeline_run.main(["--no-train"]) == 0
    assert len(executed) == 1, capsys.readouterr().out
