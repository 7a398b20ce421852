"""Fault corpus, every stop signal (coworkenv.stop_signals) reaching `python -m pipelines.run` inside a Dagster step
or between two Dagster runs, as a closing terminal's SIGHUP, Ctrl-\\'s SIGQUIT or a CPU time limit's SIGXCPU does:
the run stops with one line naming the signal and exit 130, the Dagster run it stopped ends failed (not left
running for a reaper), no temp file is left, and the next run completes. A run started under nohup goes on through
a SIGHUP."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import dagster as dg
import pytest

from tests.faults.child import FAULT_NOT_MET
from tests.faults.harness import run_child, start_child, temp_files
from tests.support import fault_child_server
from tests.support.pipeline_child import make_workspace

PIPELINE = "tests.faults.scenarios:pipeline_run"
PIPELINE_CAPABILITY = "report_from_data"
DESCRIBE = "tests.support.fault_child_server:describe"
IN_A_STEP = "coworkenv.rollout:rollout_specs:1:before"  # inside the capability run's trajectories step
BETWEEN_RUNS = "pipelines.run:_aggregates:1:before"  # after the capability run, before the aggregates


# The next run after a stop is run once per stop point, not once per signal: SIGHUP, SIGQUIT and SIGXCPU all reach
# the one `hand_over` handler of pipelines/run_signals.py (each of `unhandled_stop_signals` but SIGINT and SIGTERM),
# which records the signal's name for the message and defers the stop to Dagster's same safe point, so the run they
# stop leaves the same instance and data folder behind; what each signal's stop left is still checked for each.
@pytest.mark.parametrize(("point", "signo", "rerun"),
                         [(IN_A_STEP, signal.SIGHUP, True), (IN_A_STEP, signal.SIGQUIT, False),
                          (BETWEEN_RUNS, signal.SIGHUP, True), (IN_A_STEP, signal.SIGXCPU, False)],
                         ids=["hup-in-a-step", "quit-in-a-step", "hup-between-runs", "xcpu-in-a-step"])
def test_a_stop_signal_stops_a_pipeline_run_which_the_next_run_completes(tmp_path: Path, point: str,
                                                                       signo: signal.Signals, rerun: bool) -> None:
    ws = make_workspace(tmp_path, (PIPELINE_CAPABILITY,))
    stopped = run_child(["--no-train"], call=PIPELINE, kill=(f"{point}:{signo.name}",), env=ws.env(), preloaded=True)
    assert stopped.returncode == 130, stopped.stdout + stopped.stderr
    assert f"interrupted: stopped by {signo.name}; partitions left incomplete are redone by the next run" \
        in stopped.stderr
    assert "Traceback" not in stopped.stderr and temp_files(ws.data) == []
    with ws.instance() as instance:  # the run it stopped ended failed, not left running for a reaper to find
        assert all(run.is_finished for run in instance.get_runs())
        assert instance.get_latest_materialization_event(dg.AssetKey("hub_dataset")) is None  # it stopped early
    if not rerun:
        return
    again = run_child(["--no-train"], call=PIPELINE, env=ws.env(), preloaded=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "hub_dataset              ok" in again.stdout and temp_files(ws.data) == []
    with ws.instance() as instance:
        assert instance.get_latest_materialization_event(dg.AssetKey("hub_dataset")) is not None


def test_a_pipeline_run_started_under_nohup_runs_through_a_hang_up(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, (PIPELINE_CAPABILITY,))
    survived = run_child(["--no-train"], call=PIPELINE, kill=(f"{IN_A_STEP}:SIGHUP",), ignore=("SIGHUP",),
                         env=ws.env(), preloaded=True)
    assert survived.returncode == FAULT_NOT_MET, survived.stdout + survived.stderr
    assert "SIGHUP is ignored in this process" in survived.stderr
    assert f"{PIPELINE_CAPABILITY:<40} ok" in survived.stdout and "hub_dataset              ok" in survived.stdout


def test_a_preloaded_child_starts_as_a_fresh_one_would() -> None:
    """The cases above fork their children from a server that imported the pipeline once
    (tests/support/fault_child_server.py); what a child's program can tell of its start is what a fresh
    `python -m tests.faults.child` tells: descriptors (kinds, inheritance), signal dispositions and mask, process group
    and session, environment, arguments, folder, interpreter flags, Python threads, the standard streams' settings,
    umask, resource limits."""
    args, env = ["--no-train", "two words"], {"FAULT_CHILD_PROBE": "1"}
    fresh = run_child(args, call=DESCRIBE, env=env, ignore=("SIGHUP",))
    server = fault_child_server.server()
    before = server.forked
    forked = run_child(args, call=DESCRIBE, env=env, ignore=("SIGHUP",), preloaded=True)
    assert server.forked == before + 1, "the preloaded child was started fresh: the server refused or is broken"
    assert (forked.returncode, forked.stderr) == (fresh.returncode, fresh.stderr) == (0, "to stderr\n")
    assert json.loads(forked.stdout) == json.loads(fresh.stdout)
    beside = start_child(args, call=DESCRIBE, env=env, ignore=("SIGHUP",))  # one of children run side by side
    assert isinstance(beside, fault_child_server.Beside), server.refused[-1:]
    out, err = beside.communicate(timeout=600)
    assert (beside.returncode, err) == (0, "to stderr\n") and json.loads(out) == json.loads(fresh.stdout)


def test_a_child_whose_environment_differs_where_the_preload_read_it_starts_fresh() -> None:
    """The server's preload reads COLUMNS while importing (argparse's help formatter asks `shutil` for the terminal's
    width): a child with another width is refused by the server (the caller then starts a fresh one), one with only a
    variable nothing read at import is forked."""
    server = fault_child_server.server()
    env = {**os.environ, "PYTHONPATH": str(fault_child_server.ROOT)}
    refused, forked = len(server.refused), server.forked
    narrow = {**env, "COLUMNS": "37" if env.get("COLUMNS") != "37" else "38"}
    assert server.run(["--call", DESCRIBE, "--"], narrow, 120) is None
    assert len(server.refused) == refused + 1 and "COLUMNS" in server.refused[-1], server.refused[-1:]
    done = server.run(["--call", DESCRIBE, "--"], {**env, "FAULT_CHILD_UNREAD": "1"}, 120)
    assert done is not None and done[0] == 0 and server.forked == forked + 1, done
    assert json.loads(done[1])["environ"]["FAULT_CHILD_UNREAD"] == "1"
