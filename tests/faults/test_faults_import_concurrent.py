"""Fault corpus, two `coworkenv import claw-eval` runs into one folder at once (a second terminal, a script started
twice, two checkouts imported into one specs folder by two jobs): into a new folder, and into the folder of an earlier
import.

On main both ran side by side: each read the earlier report at its start, so the one ending last wrote a report that
did not list the other's specs (left in the folder: `rollout DIR` ran a task no report named) or listed a spec the
other had removed as stale (the report said imported, the file was gone). Now a second import into the folder waits
for the first, saying so, and the folder ends as one import left it: its specs are exactly those its report lists
(`coworkenv/importers/claw_eval.py: import_checkout`, a lock on the folder). Regression guard: the same checkout
imported twice at once ends whole on main too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import ROOT

TASKS = ROOT / "tests" / "fixtures" / "claw_eval_like" / "tasks"
FIRST, SECOND, THIRD = "CE01_draft_invoice_reply", "CE02_vpn_ticket_triage", "CE03_outage_escalation"
WAITING = "another import into"


def _checkout(where: Path, *tasks: str) -> Path:
    for task in tasks:
        shutil.copytree(TASKS / task, where / "tasks" / task)
    return where


def _child(args: list[str], stderr: Path) -> subprocess.Popen[bytes]:
    with stderr.open("wb") as sink:
        return subprocess.Popen([sys.executable, "-m", "tests.faults.child", *args], cwd=ROOT, stdout=sink,
                                stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _wait(condition: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.05)


def _consistent(out: Path) -> tuple[set[str], set[str]]:
    report = orjson.loads((out / "import_report.json").read_bytes())
    listed = {t["spec_file"] for t in report["tasks"] if t["spec_file"]}
    present = {p.name for p in out.glob("*.json")} - {"import_report.json"}
    return listed, present


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", ["into a new folder", "into an earlier import's folder", "the same checkout twice"])
def test_a_second_import_into_one_folder_waits_and_the_folder_is_one_imports(tmp_path: Path, case: str) -> None:
    first = _checkout(tmp_path / "first", FIRST, SECOND)
    second = first if case == "the same checkout twice" else _checkout(tmp_path / "second", THIRD)
    out = tmp_path / "specs"
    if case == "into an earlier import's folder":
        assert CliRunner().invoke(app, ["import", "claw-eval", str(first), "--out", str(out)]).exit_code == 0
    paused, go = tmp_path / "paused", tmp_path / "go"
    one = _child(["--call", "tests.faults.scenarios:import_pausing", "--", str(first), str(out), str(paused),
                  str(go)], tmp_path / "one.log")
    _wait(lambda: paused.exists() or one.poll() is not None, 300)
    assert paused.exists(), (tmp_path / "one.log").read_text()[-3000:]
    two = _child(["--", "import", "claw-eval", str(second), "--out", str(out)], tmp_path / "two.log")
    _wait(lambda: two.poll() is not None or WAITING in (tmp_path / "two.log").read_text(), 300)
    go.touch()
    assert one.wait(timeout=300) == 0, (tmp_path / "one.log").read_text()[-3000:]
    assert two.wait(timeout=300) == 0, (tmp_path / "two.log").read_text()[-3000:]
    listed, present = _consistent(out)
    assert listed == present, f"report lists {sorted(listed)}, the folder holds {sorted(present)}"
    assert present == {f"{task}.json" for task in os.listdir(second / "tasks")}  # the import that ran last
    if second != first:
        assert WAITING in (tmp_path / "two.log").read_text()
