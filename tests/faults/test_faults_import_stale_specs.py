"""Fault corpus, `coworkenv import claw-eval` run again into the folder of an earlier import after the checkout
changed: a task folder removed, a task that is skipped now (its task.yaml broken, or its tools removed), a task_id
renamed.

On main the earlier import's spec of such a task stayed in the folder beside the new ones: the new report did not
list it or called it skipped, yet `coworkenv rollout DIR` ran it (2 episodes in 2 envs after the second task was
removed from a checkout of two), and a renamed task ran twice, under both ids. A fresh import into an empty folder
gave another folder than the re-run. Now the specs the earlier report lists and this import did not write are
removed, and the command says which (`coworkenv/importers/spec_file_names.py: remove_stale_specs`). Regression
guards: the user's own files in the folder, a file outside it that an earlier report names (`../x.json`, written by
main for such an id), and a re-import of the same checkout are left alone.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
import yaml
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import ROOT

TASKS = ROOT / "tests" / "fixtures" / "claw_eval_like" / "tasks"
FIRST, SECOND = "CE01_draft_invoice_reply", "CE02_vpn_ticket_triage"


def _import(checkout: Path, out: Path) -> str:
    result = CliRunner().invoke(app, ["import", "claw-eval", str(checkout), "--out", str(out)])
    assert result.exit_code == 0 and result.exception is None, result.output
    return result.output


def _specs_listed(out: Path) -> set[str]:
    report = orjson.loads((out / "import_report.json").read_bytes())
    return {t["spec_file"] for t in report["tasks"] if t["spec_file"]}


def _edit(task: Path, **changes: object) -> None:
    path = task / "task.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.update(changes)
    path.write_text(yaml.safe_dump(data), encoding="utf-8")


def _remove(task: Path) -> None:
    shutil.rmtree(task)


def _break(task: Path) -> None:
    (task / "task.yaml").write_text("task_id: [unclosed\n", encoding="utf-8")


def _no_tools(task: Path) -> None:
    _edit(task, tools=[])


def _renamed(task: Path) -> None:
    _edit(task, task_id="CE02_renamed")


CHANGES = {"task-folder-removed": _remove, "task-yaml-broken": _break, "tools-removed": _no_tools,
           "task-id-renamed": _renamed}


@pytest.mark.parametrize("case", sorted(CHANGES))
def test_a_reimport_leaves_only_the_specs_it_wrote(tmp_path: Path, case: str) -> None:
    tasks, out = tmp_path / "checkout" / "tasks", tmp_path / "out"
    for name in (FIRST, SECOND):
        shutil.copytree(TASKS / name, tasks / name)
    _import(tmp_path / "checkout", out)
    assert _specs_listed(out) == {f"{FIRST}.json", f"{SECOND}.json"}
    CHANGES[case](tasks / SECOND)
    shown = _import(tmp_path / "checkout", out)
    listed = _specs_listed(out)
    assert sorted(p.name for p in out.iterdir()) == sorted([*listed, "import_report.json"])
    assert f"{SECOND}.json" not in listed
    assert f"removed 1 spec(s) of the earlier import into {out} that this import did not write: {SECOND}.json" in shown
    fresh = tmp_path / "fresh"
    _import(tmp_path / "checkout", fresh)
    assert sorted(p.name for p in fresh.iterdir()) == sorted(p.name for p in out.iterdir())


def test_guard_files_the_earlier_report_does_not_list_and_files_outside_are_kept(tmp_path: Path) -> None:
    """Regression guard: the user's own files in the folder, and a file outside it that an earlier report names
    (main wrote `../outside.json` for such an id), survive a re-import; a re-import of the same checkout removes
    nothing."""
    tasks, out = tmp_path / "checkout" / "tasks", tmp_path / "out"
    shutil.copytree(TASKS / FIRST, tasks / FIRST)
    _import(tmp_path / "checkout", out)
    own = {"notes.json": b'{"mine": true}', "hand_written_spec.json": b"{}"}
    for name, data in own.items():
        (out / name).write_bytes(data)
    outside = tmp_path / "outside.json"
    outside.write_bytes(b"{}")
    report = orjson.loads((out / "import_report.json").read_bytes())
    report["tasks"].append({"task_id": "../outside", "status": "partial", "spec_file": "../outside.json"})
    (out / "import_report.json").write_bytes(orjson.dumps(report))
    shown = _import(tmp_path / "checkout", out)
    assert "removed" not in shown, shown
    assert outside.is_file() and all((out / name).read_bytes() == data for name, data in own.items())
    assert (out / f"{FIRST}.json").is_file()
    assert "removed" not in _import(tmp_path / "checkout", out)
