"""Fault corpus, Ctrl-C and hang-ups at the points where SIGTERM is tested, and two commands writing one output at
once. A stopped command prints one line saying so, exits 128 + signal, leaves no temp file and nothing half-written;
running it again gives what an uninterrupted run gives. Two writers of one folder take turns: the folder ends as
one whole output, never a mix of both."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import dagster as dg
import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.store.stages import read_sft, sft_files
from tests.faults.child import FAULT_NOT_MET
from tests.faults.harness import CAPABILITY, run_child, snapshot, spec_folder, start_child, temp_files
from tests.support.fault_child_server import Beside
from tests.support.pipeline_child import make_workspace

runner = CliRunner()
STAGE = "coworkenv.store.stages._stage"
SFT = "coworkenv.store.stages.sft"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("signals")
    specs = spec_folder(root / "in")
    assert runner.invoke(app, ["rollout", str(specs), "--out", str(root / "traj"), "--k", "3"]).exit_code == 0
    return {"specs": specs, "traj": root / "traj"}


POINTS = {
    "synth": (lambda made, out: ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "1"],
              f"{STAGE}:write_parquet:1:after"),
    "rollout": (lambda made, out: ["rollout", str(made["specs"]), "--out", str(out)], f"{STAGE}:write_parquet:1:after"),
    "curate": (lambda made, out: ["curate", str(made["traj"]), "--out", str(out)],
               f"{SFT}:ShardWriter._write_pending:1:after"),
    "validate": (lambda made, out: ["validate", str(made["specs"]), "--out", str(out)],
                 f"{STAGE}:write_parquet:1:after"),
}


# The child starts with the stop signals at their defaults (tests/faults/child.py): a runner started in the
# background or under nohup ignores SIGINT and SIGHUP, and its children inherited that, so these once ran to the
# end unstopped in such a run.
@pytest.mark.parametrize(("command", "signo"), [("synth", signal.SIGINT), ("rollout", signal.SIGINT),
                                                 ("curate", signal.SIGINT), ("validate", signal.SIGINT),
                                                 ("synth", signal.SIGHUP)])
def test_a_signal_while_writing_is_one_line_no_temp_file_and_a_rerun_completes(
        made: dict[str, Path], tmp_path: Path, command: str, signo: signal.Signals) -> None:
    args, point = POINTS[command]
    out = tmp_path / "out"
    stopped = run_child(args(made, out), kill=(f"{point}:{signo.name}",), preloaded=True)
    assert stopped.returncode == 128 + signo, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert stopped.errors == [f"error: stopped by {signo.name}; the files being written were dropped and earlier "
                              "outputs are unchanged; run the same command again to finish"]
    assert temp_files(out) == [] and not list(out.glob("*.parquet"))
    if command == "synth":  # the rerun gives the bytes an uninterrupted run gives
        assert runner.invoke(app, args(made, out)).exit_code == 0
        assert runner.invoke(app, args(made, tmp_path / "clean")).exit_code == 0
        assert snapshot(out) == snapshot(tmp_path / "clean")


@pytest.mark.parametrize("ignored", ["SIGHUP", "SIGINT"], ids=["nohup", "background-job"])
def test_a_command_started_ignoring_a_signal_runs_through_it_and_writes_its_output(tmp_path: Path,
                                                                                  ignored: str) -> None:
    # nohup ignores SIGHUP, and a non-interactive shell's background job SIGINT, before starting the command: the
    # CLI must leave that alone, not stop.
    out = tmp_path / "specs"
    args = ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "1"]
    survived = run_child(args, kill=(f"{STAGE}:write_parquet:1:after:{ignored}",), ignore=(ignored,), preloaded=True)
    assert survived.returncode == FAULT_NOT_MET, survived.stderr
    assert f"{ignored} is ignored in this process" in survived.stderr  # it was sent, and the command went on
    assert runner.invoke(app, [*args[:2], str(tmp_path / "clean"), *args[3:]]).exit_code == 0
    assert snapshot(out) == snapshot(tmp_path / "clean") and temp_files(out) == []


PIPELINE = "tests.faults.scenarios:pipeline_run"
PIPELINE_CAPABILITY = "report_from_data"


def test_a_pipeline_run_started_ignoring_sigint_runs_through_one_inside_a_step(tmp_path: Path) -> None:
    # `make run &` from a script, or nohup: the script's Ctrl-C reaches the whole process group, and the run must
    # go on as the shell asked (Dagster installs its own SIGINT handler around each step).
    ws = make_workspace(tmp_path, (PIPELINE_CAPABILITY,))
    survived = run_child(["--no-train"], call=PIPELINE, kill=("coworkenv.rollout:rollout_specs:1:before:SIGINT",),
                         ignore=("SIGINT",), env=ws.env(), preloaded=True)
    assert survived.returncode == FAULT_NOT_MET, survived.stdout + survived.stderr
    assert "SIGINT is ignored in this process" in survived.stderr
    assert f"{PIPELINE_CAPABILITY:<40} ok" in survived.stdout and "hub_dataset" in survived.stdout
    assert "interrupted" not in survived.stderr


def test_a_pipeline_run_ignoring_sigint_still_stops_on_sigterm_after_a_dagster_run(tmp_path: Path) -> None:
    # Dagster maps SIGTERM to the SIGINT handler it restores after each run: an ignored SIGINT must not leave
    # SIGTERM ignored too.
    ws = make_workspace(tmp_path, (PIPELINE_CAPABILITY,))
    stopped = run_child(["--no-train"], call=PIPELINE, ignore=("SIGINT",), env=ws.env(),
                        kill=("pipelines.run:_checked_inputs:1:after:SIGINT", "pipelines.run:_aggregates:1:before:SIGTERM"),
                        preloaded=True)
    assert stopped.returncode == 130, stopped.stdout + stopped.stderr
    assert f"{PIPELINE_CAPABILITY:<40} ok" in stopped.stdout  # the SIGINT before it did not stop the run
    assert "interrupted: stopped" in stopped.stderr and "Traceback" not in stopped.stderr


def test_a_fault_point_the_command_never_reaches_fails_the_child_loudly(tmp_path: Path) -> None:
    # A fault case must not pass by not running its fault: a command that succeeds without meeting it says so.
    args = ["synth", "--out", str(tmp_path / "specs"), "-c", CAPABILITY, "--n", "1"]
    result = run_child(args, kill=(f"{STAGE}:write_parquet:2:after:SIGINT",), preloaded=True)
    assert result.returncode == FAULT_NOT_MET, result.stderr
    assert f"fault point {STAGE}:write_parquet:2:after:SIGINT was not met: its target was called 1 times, not 2" \
        in result.stderr


def _child(args: list[str], *kill: str) -> subprocess.Popen[str] | Beside:
    return start_child(args, kill=kill)  # forked side by side from the preloaded server where it can


def _waits_for_a_lock(pid: int, deadline_s: float = 120) -> bool:
    """Whether process `pid` comes to wait for a file lock (a blocked request in /proc/locks) before it ends."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if any(line.split()[1] == "->" and line.split()[5] == str(pid)
               for line in Path("/proc/locks").read_text().splitlines() if len(line.split()) > 5):
            return True
        if not Path(f"/proc/{pid}").exists():
            return False
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc")
def test_two_curates_into_one_folder_take_turns_and_leave_one_whole_set(made: dict[str, Path],
                                                                        tmp_path: Path) -> None:
    # What the second writer alone writes: the set the folder must hold in the end (the row count follows the
    # generators, so it is read here rather than written into the test).
    reference = tmp_path / "alone"
    alone = _child(["curate", str(made["traj"]), "--out", str(reference), "--max-rows-per-shard", "4"])
    _, err = alone.communicate(timeout=600)
    assert alone.returncode == 0, err
    expected = sorted(p.name for p in reference.glob("train-*.parquet"))
    rows = read_sft(sft_files(reference)).num_rows
    assert rows >= 2, "the first writer needs two shards of one row to stop between them"
    out = tmp_path / "sft"
    base = ["curate", str(made["traj"]), "--out", str(out)]
    # The first stops itself half-way through its shards (SIGSTOP), the lock held; the second must wait for it.
    first = _child([*base, "--max-rows-per-shard", "1"], f"{SFT}:ShardWriter._write_pending:2:after:SIGSTOP")
    while not out.exists() or not Path(f"/proc/{first.pid}/status").read_text().count("T (stopped)"):
        assert first.poll() is None, first.stderr.read() if first.stderr else ""
        time.sleep(0.1)
    second = _child([*base, "--max-rows-per-shard", "4"])
    try:
        assert _waits_for_a_lock(second.pid), "the second curate did not wait for the first"
    finally:
        first.send_signal(signal.SIGCONT)
    for child in (first, second):
        _, err = child.communicate(timeout=600)
        assert child.returncode == 0, err
    shards = sorted(p.name for p in out.glob("train-*.parquet"))
    assert shards == expected  # the last writer's, whole
    assert read_sft(sft_files(out)).num_rows == rows and temp_files(out) == []
    report = (out / "curation_report.json").read_text()
    assert all(name in report for name in shards) and f"of-{rows:05d}.parquet" not in report  # not the first's


def test_two_synths_into_one_folder_at_once_leave_the_files_one_run_writes(tmp_path: Path) -> None:
    out = tmp_path / "specs"
    args = ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "2"]
    children = [_child(args), _child(args)]
    for child in children:
        _, err = child.communicate(timeout=600)
        assert child.returncode == 0, err
    assert runner.invoke(app, ["synth", "--out", str(tmp_path / "clean"), "-c", CAPABILITY, "--n", "2"]).exit_code == 0
    assert snapshot(out) == snapshot(tmp_path / "clean") and temp_files(out) == []


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc")
@pytest.mark.timeout(600)
def test_two_pipeline_runs_in_one_folder_take_turns_and_leave_it_consistent(tmp_path: Path) -> None:
    from coworkenv.store import LocalGitPublisher

    ws = make_workspace(tmp_path, (PIPELINE_CAPABILITY,))

    def start(*kill: str) -> subprocess.Popen[str] | Beside:
        return start_child(["--no-train"], kill=kill, call=PIPELINE, env=ws.env())

    # The first stops itself inside its capability run (SIGSTOP); the second must wait for it, not run beside it.
    first = start("coworkenv.rollout:rollout_specs:1:before:SIGSTOP")
    while "T (stopped)" not in Path(f"/proc/{first.pid}/status").read_text():
        assert first.poll() is None, first.stderr.read() if first.stderr else ""
        time.sleep(0.1)
    second = start()
    try:
        assert _waits_for_a_lock(second.pid), "the second pipeline run did not wait for the first"
    finally:
        first.send_signal(signal.SIGCONT)
    (out1, err1), (out2, err2) = first.communicate(timeout=600), second.communicate(timeout=600)
    assert first.returncode == 0 and second.returncode == 0, err1 + err2
    assert f"another `python -m pipelines.run` (pid {first.pid}) is running in {ws.home}" in out2 + err2
    assert f"{PIPELINE_CAPABILITY:<40} ok" in out1 and "every capability partition is complete" in out2, out2
    with ws.instance() as instance:
        runs = instance.get_runs(dg.RunsFilter(tags={"dagster/partition": PIPELINE_CAPABILITY}))
        published = instance.get_latest_materialization_event(dg.AssetKey("hub_dataset"))
    assert [run.status for run in runs] == [dg.DagsterRunStatus.SUCCESS]  # made once
    assert published is not None and published.asset_materialization is not None
    repo = Path(str(published.asset_materialization.metadata["location"].value))
    assert len(LocalGitPublisher(repo).published_versions()) == 1 and temp_files(ws.data) == []
