"""Fault corpus, two trainings into one checkpoint folder at once (`coworkenv train sft --out X` run again in
another terminal, two pipelines sharing a data folder). Both wrote into the same staging folder beside X: the second
deleted the first's files as an interrupted run's leftovers, or mixed its own in, and the mixture was put in place
as one checkpoint. Now the second waits, saying so, and X holds one training's checkpoint whole. The model work is
stubbed (tests/faults/scenarios.py: train_sft_beside): the race is in putting files in place, not in training."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.harness import ROOT
from tests.support.preloaded_python import Beside, PreloadedPython


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PreloadedPython]:
    """One interpreter that imported the training module once (torch, transformers, trl: ~12 s of CPU), forking
    every training of the module side by side: each child is `python -m tests.faults.child --call ...` as a fresh
    one runs it, in ROOT, in this process's environment; 1 import a module, not 2 a case."""
    python = PreloadedPython(("tests.faults.child", "tests.faults.scenarios", "trainers.sft", "trainers.config"),
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                             folder=tmp_path_factory.mktemp("server"))
    yield python
    python.close()


def _training(server: PreloadedPython, out: Path, tag: str, first_written: Path, wait_for: str) -> Beside:
    args = ["--call", "tests.faults.scenarios:train_sft_beside", "--", str(out), tag, str(first_written), wait_for]
    return server.start_beside(f"from tests.faults.child import main\nmain({args!r})")


def test_a_second_training_into_one_folder_waits_and_the_checkpoint_is_one_trainings(server: PreloadedPython,
                                                                                     tmp_path: Path) -> None:
    out = tmp_path / "checkpoint"
    first_wrote, second_started = tmp_path / "first-wrote", tmp_path / "second-started"
    first = _training(server, out, "first", first_wrote, str(second_started))
    deadline = time.monotonic() + 300
    while not first_wrote.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    second = _training(server, out, "second", second_started, "-")  # while the first writes its checkpoint
    _, first_err = first.communicate(timeout=300)
    _, second_err = second.communicate(timeout=300)
    assert first.returncode == 0, first_err[-3000:]
    assert second.returncode == 0, second_err[-3000:]
    parts = {p.name: p.read_text() for p in out.glob("part-*.bin")}
    assert sorted(parts) == ["part-0.bin", "part-1.bin", "part-2.bin"] and set(parts.values()) == {"second"}, parts
    assert "waiting for it to end" in second_err, second_err[-3000:]
    assert not list(tmp_path.glob(".checkpoint.*"))  # no staging or previous folder left beside it


def test_trainings_into_two_folders_of_one_parent_do_not_wait_for_each_other(server: PreloadedPython,
                                                                              tmp_path: Path) -> None:
    """The runs of an RL comparison (one process per variant, `runs/X/rl/<variant>-s<seed>`) write sibling folders:
    a lock on their parent made each process wait for the other's whole run."""
    first_wrote, second_started = tmp_path / "first-wrote", tmp_path / "second-started"
    first = _training(server, tmp_path / "rl" / "a", "first", first_wrote, str(second_started))
    deadline = time.monotonic() + 300
    while not first_wrote.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    second = _training(server, tmp_path / "rl" / "b", "second", second_started, "-")  # the first holds its staging
    _, second_err = second.communicate(timeout=300)
    _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0 and second.returncode == 0, (first_err[-3000:], second_err[-3000:])
    assert "waiting for it to end" not in second_err, second_err[-3000:]
    for folder, tag in (("a", "first"), ("b", "second")):
        parts = {p.name: p.read_text() for p in (tmp_path / "rl" / folder).glob("part-*.bin")}
        assert sorted(parts) == ["part-0.bin", "part-1.bin", "part-2.bin"] and set(parts.values()) == {tag}, parts
    assert sorted(p.name for p in (tmp_path / "rl").iterdir()) == ["a", "b"]  # no staging folder or lock file left
