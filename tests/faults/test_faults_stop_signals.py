"""Fault corpus, every stop signal (coworkenv.stop_signals: a closing terminal's SIGHUP, Ctrl-\\'s SIGQUIT, a
scheduler's SIGUSR1, a CPU time limit's SIGXCPU, ...) at its default action when a command starts, as from an
interactive shell. Each stops the command the way SIGTERM does: one line naming the signal, exit 128 + signal, no
temp file, nothing half-written, and a rerun ends as an uninterrupted run. (A pipeline run:
test_faults_stop_signals_pipeline.py.)"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.stop_signals import STOP_SIGNALS
from tests.faults.harness import CAPABILITY, assert_whole_parquet, run_child, snapshot, temp_files

runner = CliRunner()
STOPPED = ("the files being written were dropped and earlier outputs are unchanged; run the same command again to "
           "finish")


@pytest.mark.parametrize("signo", STOP_SIGNALS, ids=[s.name for s in STOP_SIGNALS])
def test_every_stop_signal_while_writing_stops_synth_cleanly_and_a_rerun_completes(tmp_path: Path,
                                                                                 signo: signal.Signals) -> None:
    out = tmp_path / "specs"
    args = ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "2"]
    stopped = run_child(args, kill=(f"coworkenv.store.stages._stage:write_parquet:1:after:{signo.name}",), preloaded=True)
    assert stopped.returncode == 128 + signo, stopped.stderr
    assert stopped.errors == [f"error: stopped by {signo.name}; {STOPPED}"] and "Traceback" not in stopped.stderr
    assert temp_files(out) == [] and not list(out.glob("*.parquet"))
    assert runner.invoke(app, args).exit_code == 0
    assert runner.invoke(app, [*args[:2], str(tmp_path / "clean"), *args[3:]]).exit_code == 0
    assert snapshot(out) == snapshot(tmp_path / "clean")


@pytest.mark.parametrize("signo", [signal.SIGHUP, signal.SIGQUIT], ids=["SIGHUP", "SIGQUIT"])
def test_a_hang_up_or_quit_between_shards_keeps_the_earlier_shards(tmp_path: Path, signo: signal.Signals) -> None:
    specs, traj, out = tmp_path / "specs", tmp_path / "traj", tmp_path / "sft"
    assert runner.invoke(app, ["synth", "--out", str(specs), "-c", CAPABILITY, "--n", "3"]).exit_code == 0
    assert runner.invoke(app, ["rollout", str(specs), "--out", str(traj), "--k", "2"]).exit_code == 0
    assert runner.invoke(app, ["curate", str(traj), "--out", str(out)]).exit_code == 0
    before = snapshot(out)
    stopped = run_child(["curate", str(traj), "--out", str(out), "--max-rows-per-shard", "1"],
                        kill=(f"coworkenv.store.stages.sft:ShardWriter._write_pending:1:after:{signo.name}",), preloaded=True)
    assert stopped.returncode == 128 + signo, stopped.stderr
    assert stopped.errors == [f"error: stopped by {signo.name}; {STOPPED}"]
    assert snapshot(out) == before and temp_files(out) == []
    assert_whole_parquet(out)


