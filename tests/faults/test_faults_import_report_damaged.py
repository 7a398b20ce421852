"""Fault corpus, `coworkenv import claw-eval` into the folder of an earlier import whose `import_report.json` is
damaged or edited by hand: cut short (a copy or a sync stopped half way), emptied, its blocks zeroed (a power loss
on a file system that keeps the size), a trailing comma from an editor, a byte order mark (read past now), replaced by its task
list or with `tasks` made an object; a link to a file gone; a folder; a report edited to list the user's own files.

On main a report that did not read as the earlier import's was taken as no report at all, without a word: the specs
of tasks the checkout no longer has (a task folder removed) stayed beside the new ones for `rollout DIR` to run, and
the new report, written over the damaged one, no longer named them, so no later import removed them either. A
report listing a file the importer never wrote (the user's own spec, a notes file) had it deleted for good; a report
that is a folder stopped the import only at the report, after every spec was written and the stale ones removed
(exit 1, "a file stands where a folder is expected"). Now a damaged report is said to be
so (naming it and what is wrong) and the earlier import's specs are found by their content (a spec this importer
wrote says `"generator": "import:claw-eval"`); only such specs are removed, a listed file of the user's is kept,
saying so; a report that is a folder is refused before anything is written. Regression guards: a report saved with
Windows line ends, and one with a task's entry removed by hand (its spec kept: a report that reads is taken).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names, load_example
from tests.faults.harness import ROOT, refused, snapshot

TASKS = ROOT / "tests" / "fixtures" / "claw_eval_like" / "tasks"
FIRST, SECOND = "CE01_draft_invoice_reply", "CE02_vpn_ticket_triage"
REPORT = "import_report.json"


def _import(checkout: Path, out: Path) -> str:
    result = CliRunner().invoke(app, ["import", "claw-eval", str(checkout), "--out", str(out)])
    assert result.exit_code == 0 and result.exception is None, result.output
    return result.output


def _imported_twice(tmp_path: Path) -> tuple[Path, Path]:
    tasks, out = tmp_path / "checkout" / "tasks", tmp_path / "out"
    for name in (FIRST, SECOND):
        shutil.copytree(TASKS / name, tasks / name)
    _import(tmp_path / "checkout", out)
    return tasks, out


def _listed(out: Path) -> set[str]:
    return {t["spec_file"] for t in orjson.loads((out / REPORT).read_bytes())["tasks"] if t["spec_file"]}


def _rewrite(change: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    def damage(report: Path) -> None:
        report.write_bytes(change(report.read_bytes()))
    return damage


def _trailing_comma(data: bytes) -> bytes:
    end = data.rindex(b"]")
    return data[:end].rstrip() + b",\n  ]" + data[end + 1:]


def _as_list(data: bytes) -> bytes:
    return orjson.dumps(orjson.loads(data)["tasks"])


def _tasks_object(data: bytes) -> bytes:
    report = orjson.loads(data)
    report["tasks"] = {t["task_id"]: t for t in report["tasks"]}
    return orjson.dumps(report)


def _dangling_link(report: Path) -> None:
    report.unlink()
    report.symlink_to(report.parent / "gone" / report.name)


DAMAGES: dict[str, Callable[[Path], None]] = {
    "cut short": _rewrite(lambda data: data[: len(data) // 2]),
    "emptied": _rewrite(lambda data: b""),
    "zeroed": _rewrite(lambda data: b"\0" * len(data)),
    "a trailing comma": _rewrite(_trailing_comma),
    "a byte order mark": _rewrite(lambda data: b"\xef\xbb\xbf" + data),
    "its task list": _rewrite(_as_list),
    "tasks an object": _rewrite(_tasks_object),
    "a dangling link": _dangling_link,
}


@pytest.mark.parametrize("case", sorted(DAMAGES))
def test_a_damaged_earlier_report_still_removes_the_earlier_imports_stale_specs(tmp_path: Path, case: str) -> None:
    tasks, out = _imported_twice(tmp_path)
    DAMAGES[case](out / REPORT)
    shutil.rmtree(tasks / SECOND)
    shown = _import(tmp_path / "checkout", out)
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{FIRST}.json", REPORT]), shown
    assert _listed(out) == {f"{FIRST}.json"}
    if case != "a byte order mark":  # an editor's mark is read past: the report is whole
        assert f"{out / REPORT}" in shown and "found by their content" in shown, shown
    assert f"removed 1 spec(s) of the earlier import into {out} that this import did not write: {SECOND}.json" in shown


@pytest.mark.parametrize("listed", ["a spec of the user's", "a notes file"])
def test_a_report_edited_to_list_the_users_own_file_has_it_kept(tmp_path: Path, listed: str) -> None:
    out = _imported_twice(tmp_path)[1]
    own = out / ("hand_written_spec.json" if listed == "a spec of the user's" else "notes.json")
    data = (orjson.dumps(load_example(example_names()[0]).model_dump(mode="json", by_alias=True))
            if listed == "a spec of the user's" else b'{"mine": true}')
    own.write_bytes(data)
    report = orjson.loads((out / REPORT).read_bytes())
    report["tasks"].append({"task_id": "mine", "status": "full", "spec_file": own.name})
    (out / REPORT).write_bytes(orjson.dumps(report))
    shown = _import(tmp_path / "checkout", out)
    assert own.read_bytes() == data, shown
    assert f"kept {own.name}" in shown and "not a spec this importer wrote" in shown, shown


def test_a_report_that_is_a_folder_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    tasks, out = _imported_twice(tmp_path)
    (out / REPORT).unlink()
    (out / REPORT).mkdir()
    (out / REPORT / "keep.txt").write_text("mine")
    shutil.rmtree(tasks / SECOND)
    before = snapshot(out)
    refused(["import", "claw-eval", str(tmp_path / "checkout"), "--out", str(out)], f"{out / REPORT}",
            "is a folder", "move it away")
    assert snapshot(out) == before


@pytest.mark.parametrize("case", ["windows line ends", "a task's entry removed by hand"])
def test_guard_a_report_that_reads_finds_the_earlier_specs(tmp_path: Path, case: str) -> None:
    """Regression guards (held on main): Windows line ends read as JSON; a report that reads is taken as it is, so a
    spec whose entry was removed by hand is the user's to keep (the content is looked at only when it does not read)."""
    tasks, out = _imported_twice(tmp_path)
    data = (out / REPORT).read_bytes()
    if case == "windows line ends":
        (out / REPORT).write_bytes(data.replace(b"\n", b"\r\n"))
        shutil.rmtree(tasks / SECOND)
        shown = _import(tmp_path / "checkout", out)
        assert sorted(p.name for p in out.iterdir()) == sorted([f"{FIRST}.json", REPORT]), shown
    else:
        report = orjson.loads(data)
        report["tasks"] = [t for t in report["tasks"] if t["task_id"] != SECOND]
        (out / REPORT).write_bytes(orjson.dumps(report))
        shutil.rmtree(tasks / SECOND)
        shown = _import(tmp_path / "checkout", out)
        assert (out / f"{SECOND}.json").is_file() and "removed" not in shown, shown
