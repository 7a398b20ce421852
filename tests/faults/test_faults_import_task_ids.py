"""Fault corpus, a Claw-Eval task whose `task_id` (hand-written in its task.yaml) cannot name its spec file,
`<task_id>.json` in the import's output folder: a task folder copied to make a variant with its id left as it was,
an id holding a path, empty, blank-edged, hidden, the report's own name, with a control character, too long.

On main `coworkenv import claw-eval` joined the id to the output folder as it was: the copied task's spec overwrote
the first one's (both reported as imported, one spec on disk), `../../x` and `/abs/x` wrote the spec outside the
output folder, `ops/CE01` made a subfolder, `.hidden` and the empty id wrote hidden files that every spec reader
leaves out, `import_report` was overwritten by the report, a NUL ended in a traceback, a tab shifted the printed
columns, and a 300-character id stopped the whole import (no report) advising to "choose a shorter path". Now such
a task is skipped, saying which task.yaml, what is wrong with the id and what to do; the checkout's other tasks
are imported and the report is written (`coworkenv/importers/spec_file_names.py`).
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
FIRST, OTHER = "CE01_draft_invoice_reply", "CE02_vpn_ticket_triage"


def _checkout(root: Path, task_id: str, folder: str = "CE03_edited") -> Path:
    """A checkout holding CE01 and CE02 as shipped and a copy of CE01 in `folder` whose task_id is `task_id`."""
    tasks = root / "checkout" / "tasks"
    for name in (FIRST, OTHER):
        shutil.copytree(TASKS / name, tasks / name)
    shutil.copytree(TASKS / FIRST, tasks / folder)
    path = tasks / folder / "task.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["task_id"], data["task_name"] = task_id, "the edited copy"
    path.write_text(yaml.safe_dump(data, allow_unicode=False), encoding="utf-8")
    return root / "checkout"


def _import(checkout: Path, out: Path) -> tuple[list[str], dict[str, dict[str, object]]]:
    """Run the command; its output lines, and the report's tasks by task folder order."""
    result = CliRunner().invoke(app, ["import", "claw-eval", str(checkout), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and result.exception is None, result.output
    report = orjson.loads((out / "import_report.json").read_bytes())
    return result.output.splitlines(), {str(t["task_id"]): t for t in report["tasks"]}


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


BAD_IDS = {
    "path": ("ops/CE03", "path separator"),
    "up-and-out": ("../../CE03", "path separator"),
    "absolute": ("{root}/elsewhere/CE03", "path separator"),
    "empty": ("", "is empty"),
    "blank": ("   ", "is empty"),
    "trailing-blank": ("CE03 ", "begins or ends with a blank"),
    "hidden": (".CE03", "hidden"),
    "the-report": ("import_report", "the import's own report"),
    "nul": ("CE03\x00x", "control character"),
    "tab": ("CE03\tx", "control character"),
    "line-break": ("CE03\nx", "control character"),
    "too-long": ("C" * 300, "too long for a file name"),
}


@pytest.mark.parametrize("case", sorted(BAD_IDS))
def test_a_task_id_that_cannot_name_its_spec_file_skips_that_task_only(tmp_path: Path, case: str) -> None:
    task_id, needle = BAD_IDS[case]
    task_id = task_id.replace("{root}", str(tmp_path))
    out = tmp_path / "out"
    lines, tasks = _import(_checkout(tmp_path, task_id), out)
    assert _files(out) == sorted([f"{FIRST}.json", f"{OTHER}.json", "import_report.json"])
    assert _files(tmp_path) == sorted(["checkout", *(f"checkout/{p}" for p in _files(tmp_path / "checkout")),
                                       "out", *(f"out/{p}" for p in _files(out))])  # nothing written elsewhere
    skipped = tasks[task_id]
    assert skipped["status"] == "skipped" and skipped["spec_file"] is None
    (note,) = skipped["notes"]
    assert "CE03_edited/task.yaml: task_id" in note and needle in note and "give the task an id" in note, note
    shown = [line for line in lines if "CE03_edited/task.yaml" in line]
    assert len(shown) == 1 and "\tskipped\tcannot import: " in shown[0], lines
    assert {tasks[FIRST]["spec_file"], tasks[OTHER]["spec_file"]} == {f"{FIRST}.json", f"{OTHER}.json"}


def test_a_task_folder_copied_with_its_id_left_keeps_the_first_spec_and_says_which(tmp_path: Path) -> None:
    """The copy (sorted after the original) is skipped naming the original's folder; the original's spec is the one
    on disk, not overwritten by the copy's."""
    out = tmp_path / "out"
    first_id = yaml.safe_load((TASKS / FIRST / "task.yaml").read_text(encoding="utf-8"))["task_id"]
    lines, _ = _import(_checkout(tmp_path, first_id), out)
    report = orjson.loads((out / "import_report.json").read_bytes())["tasks"]
    assert [(t["task_id"], t["status"] == "skipped") for t in report] == [
        (first_id, False), (OTHER, False), (first_id, True)]
    (note,) = report[2]["notes"]
    assert f"CE03_edited/task.yaml: task_id {first_id!r}: task folder {FIRST} has the same id" in note, note
    spec = orjson.loads((out / f"{first_id}.json").read_bytes())
    assert spec["metadata"]["title"] != "the edited copy"
    assert _files(out) == sorted([f"{FIRST}.json", f"{OTHER}.json", "import_report.json"])
    assert sum("cannot import" in line for line in lines) == 1, lines


def test_two_ids_told_apart_by_letter_case_only_are_refused_as_one_file_name(tmp_path: Path) -> None:
    """Regression guard on this file system (Linux tells `CE02_VPN...` from `CE02_vpn...` apart, and main wrote
    both); on macOS or Windows, or a checkout copied there, main wrote one file for the two tasks."""
    out = tmp_path / "out"
    _, tasks = _import(_checkout(tmp_path, OTHER.upper()), out)
    (note,) = tasks[OTHER.upper()]["notes"]
    assert f"task folder {OTHER} has the id {OTHER!r}" in note and "letter case" in note, note
    assert _files(out) == sorted([f"{FIRST}.json", f"{OTHER}.json", "import_report.json"])
