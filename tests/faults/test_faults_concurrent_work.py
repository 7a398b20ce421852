"""Fault corpus, two runs into one output folder that share only its writing: two `rollout --add` of two spec sets
into T (kept side by side on purpose), two `validate`s into V (each replaces V's three files as one set).

The fourteenth round made each command hold its `--out` folder from its checks to its last write, so that a second
run met the folder the first left. For these two nothing is checked in the folder (`--add` keeps what is there; the
gates of validate read nothing in V), yet on main the second run waited for the whole first run before starting its
own work (a second LLM rollout or repair loop idle for hours, then run after it), saying "is running; waiting for it
to end". Now each holds the folder only while it writes there: the second does its work meanwhile and waits only
for the other's write. Regression guards (tests/faults/test_faults_concurrent_outputs.py): runs that check what the
folder holds still wait for the whole first run and then meet its files, and a validate paused inside its writes
still makes the second wait, so V's three files stay one run's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from coworkenv.examples import example_names
from coworkenv.loading import load_spec
from tests.faults.harness import ROOT, spec_folder

WAITING = "is running; waiting for it to end"
pytestmark = pytest.mark.timeout(600)


def _child(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen([sys.executable, "-m", "tests.faults.child", *args], cwd=ROOT, stdout=sink,
                                stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _until(condition: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.05)


def _second_meanwhile(tmp_path: Path, pause_at: str, first: list[str], second: list[str]) -> tuple[bool, str, str]:
    """FIRST paused at PAUSE_AT (inside its work, before its writes), SECOND run meanwhile into the same folder:
    whether SECOND ended while FIRST was still paused (it had to wait for nothing of FIRST's), and both outputs once
    both ended (each exit 0)."""
    paused, go = tmp_path / "paused", tmp_path / "go"
    one_log, two_log = tmp_path / "one.log", tmp_path / "two.log"
    one = _child(["--call", "tests.faults.scenarios:command_pausing", "--", pause_at, str(paused), str(go), *first],
                 one_log)
    _until(lambda: paused.exists() or one.poll() is not None, 300)
    assert paused.exists(), one_log.read_text()[-3000:]
    two = _child(["--", *second], two_log)
    _until(lambda: two.poll() is not None or WAITING in two_log.read_text(), 300)
    ended_meanwhile = two.poll() is not None
    go.touch()
    assert (one.wait(timeout=300), two.wait(timeout=300)) == (0, 0), one_log.read_text()[-2000:] + \
        two_log.read_text()[-2000:]
    return ended_meanwhile, one_log.read_text(), two_log.read_text()


def _spec_sets(tmp_path: Path) -> tuple[Path, Path]:
    names = example_names()
    return spec_folder(tmp_path / "specs-a", names[:2]), spec_folder(tmp_path / "specs-b", names[2:5])


def _env_ids(folder: Path) -> set[str]:
    return {load_spec(p).id for p in folder.glob("*.json")}


def test_a_second_rollout_with_add_runs_its_episodes_while_the_first_runs(tmp_path: Path) -> None:
    """On main the second waited for the whole first rollout ("is running; waiting") before its first episode."""
    a, b = _spec_sets(tmp_path)
    out = tmp_path / "T"
    meanwhile, _, two_out = _second_meanwhile(tmp_path, "coworkenv.rollout:rollout_specs",
                                              ["rollout", str(a), "--out", str(out), "--add"],
                                              ["rollout", str(b), "--out", str(out), "--add"])
    assert meanwhile and WAITING not in two_out, two_out[-2000:]
    envs = sorted(set(pq.read_table(f, columns=["env_id"]).column("env_id").to_pylist())
                  for f in out.glob("trajectories-*.parquet"))
    assert sorted(map(sorted, envs)) == sorted([sorted(_env_ids(a)), sorted(_env_ids(b))])


def test_a_second_validate_runs_its_gates_while_the_first_runs(tmp_path: Path) -> None:
    """On main the second waited for the whole first validate (its gates, its repairs) before its own gates."""
    a, b = _spec_sets(tmp_path)
    out = tmp_path / "V"
    meanwhile, _, two_out = _second_meanwhile(tmp_path, "coworkenv.validate:validate_and_repair",
                                              ["validate", str(a), "--out", str(out)],
                                              ["validate", str(b), "--out", str(out)])
    assert meanwhile and WAITING not in two_out, two_out[-2000:]
    accepted = set(pq.read_table(out / "accepted.parquet", columns=["env_id"]).column("env_id").to_pylist())
    funnel = orjson.loads((out / "funnel.json").read_bytes())
    rejected = pq.read_table(out / "rejected.parquet").num_rows
    assert accepted <= _env_ids(a), "V holds the second run's table: the first (written last) did not replace it"
    assert (funnel["accepted"], funnel["generated"]) == (len(accepted), len(accepted) + rejected) == (
        len(accepted), len(_env_ids(a)))
