"""Fault corpus, two trainings into one checkpoint folder at once (`coworkenv train sft --out X` run again in
another terminal, two pipelines sharing a data folder). Both wrote into the same staging folder beside X: the second
deleted the first's files as an interrupted run's leftovers, or mixed its own in, and the mixture was put in place
as one checkpoint. Now the second waits, saying so, and X holds one training's checkpoint whole. The model work is
stubbed (tests/faults/scenarios.py: train_sft_beside): the race is in putting files in place, not in training."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.faults.harness import ROOT


def _training(out: Path, tag: str, first_written: Path, wait_for: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tests.faults.child", "--call", "tests.faults.scenarios:train_sft_beside", "--",
               str(out), tag, str(first_written), wait_for]
    return subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_second_training_into_one_folder_waits_and_the_checkpoint_is_one_trainings(tmp_path: Path) -> None:
    out = tmp_path / "checkpoint"
    first_wrote, second_started = tmp_path / "first-wrote", tmp_path / "second-started"
    first = _training(out, "first", first_wrote, str(second_started))
    deadline = time.monotonic() + 300
    while not first_wrote.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    second = _training(out, "second", second_started, "-")  # starts while the first is writing its checkpoint
    _, first_err = first.communicate(timeout=300)
    _, second_err = second.communicate(timeout=300)
    assert first.returncode == 0, first_err[-3000:]
    assert second.returncode == 0, second_err[-3000:]
    parts = {p.name: p.read_text() for p in out.glob("part-*.bin")}
    assert sorted(parts) == ["part-0.bin", "part-1.bin", "part-2.bin"] and set(parts.values()) == {"second"}, parts
    assert "waiting for it to end" in second_err, second_err[-3000:]
    assert not list(tmp_path.glob(".checkpoint.*"))  # no staging or previous folder left beside it


def test_trainings_into_two_folders_of_one_parent_do_not_wait_for_each_other(tmp_path: Path) -> None:
    """The runs of an RL comparison (one process per variant, `runs/X/rl/<variant>-s<seed>`) write sibling folders:
    a lock on their parent made each process wait for the other's whole run."""
    first_wrote, second_started = tmp_path / "first-wrote", tmp_path / "second-started"
    first = _training(tmp_path / "rl" / "a", "first", first_wrote, str(second_started))
    deadline = time.monotonic() + 300
    while not first_wrote.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    second = _training(tmp_path / "rl" / "b", "second", second_started, "-")  # while the first holds its staging
    _, second_err = second.communicate(timeout=300)
    _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0 and second.returncode == 0, (first_err[-3000:], second_err[-3000:])
    assert "waiting for it to end" not in second_err, second_err[-3000:]
    for folder, tag in (("a", "first"), ("b", "second")):
        parts = {p.name: p.read_text() for p in (tmp_path / "rl" / folder).glob("part-*.bin")}
        assert sorted(parts) == ["part-0.bin", "part-1.bin", "part-2.bin"] and set(parts.values()) == {tag}, parts
    assert sorted(p.name for p in (tmp_path / "rl").iterdir()) == ["a", "b"]  # no staging folder or lock file left
