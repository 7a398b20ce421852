"""Fault corpus, the Dagster instance of `python -m pipelines.run`: DAGSTER_HOME's dagster.yaml damaged or naming
an unknown setting, its SQLite storage damaged (garbage, cut short), in the way (a file where its folder goes), or
on a disk that fills up. Each stops the run with one `error:` line naming the file and what to do, never a
traceback; the outputs under the data folder are untouched, and once the instance is repaired as the line says the
next run ends where an undisturbed one does."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import ChildResult, assert_clean_failure, run_child, snapshot, temp_files
from tests.support.pipeline_child import Workspace, make_workspace

PIPELINE = "tests.faults.scenarios:pipeline_run"
CAPABILITY = "report_from_data"


@pytest.fixture(scope="module")
def once_run(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """A workspace after one whole run: the reference every case copies."""
    ws = make_workspace(tmp_path_factory.mktemp("instance"), (CAPABILITY,))
    done = _run(ws)  # a child of its own, not the fork server's, whose 120 s limit a loaded machine can pass
    assert done.returncode == 0, done.stdout + done.stderr
    return ws


def _copy(ws: Workspace, where: Path) -> Workspace:
    """The workspace copied to `where` (dagster.yaml's absolute storage paths pointed there too)."""
    shutil.copytree(ws.home.parent, where)
    config = where / "home" / "dagster.yaml"
    config.write_text(config.read_text().replace(str(ws.home.parent), str(where)))
    return Workspace(where / "home", where / "data", where / "taxonomy", ws.specs)


def _run(ws: Workspace, fsize: int | None = None) -> ChildResult:
    return run_child(["--no-train"], call=PIPELINE, env=ws.env(), fsize=fsize)


def _garbage(db: Path) -> None:
    db.write_bytes(b"not a database " * 1000)


def _cut(db: Path) -> None:
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 3])


@pytest.mark.parametrize(("text", "says"), [("storage:\n  sqlite: [\n", "dagster.yaml:3: not valid YAML"),
                                            ("storage:\n  sqlit:\n    base_dir: x\n", 'unexpected config entry "sqlit"')],
                         ids=["not-yaml", "unknown-setting"])
def test_a_damaged_dagster_yaml_is_named_with_what_to_fix(once_run: Workspace, tmp_path: Path, text: str,
                                                        says: str) -> None:
    ws = _copy(once_run, tmp_path / "ws")
    (ws.home / "dagster.yaml").write_text(text)
    data = snapshot(ws.data)
    line = assert_clean_failure(_run(ws), str(ws.home / "dagster.yaml"), says, "fix the file", code=2)
    assert "Expected:" not in line  # Dagster's whole schema is no help on one line
    assert snapshot(ws.data) == data


@pytest.mark.parametrize("damage", [_garbage, _cut], ids=["garbage", "cut-short"])
def test_a_damaged_run_storage_is_named_and_once_moved_aside_the_run_ends_as_before(
        once_run: Workspace, tmp_path: Path, damage: Callable[[Path], None]) -> None:
    ws = _copy(once_run, tmp_path / "ws")
    runs_db = ws.home / "storage" / "history" / "runs.db"
    damage(runs_db)
    data = snapshot(ws.data)
    assert_clean_failure(_run(ws), str(runs_db), "is damaged", f"move the folder {ws.home / 'storage'} aside",
                         code=1)
    assert snapshot(ws.data) == data
    (ws.home / "storage").rename(ws.home / "storage.damaged")  # what the line says to do
    again = _run(ws)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _dataset_version(again.stdout) == _dataset_version(_run(once_run).stdout)
    assert temp_files(ws.data) == []


def test_a_file_where_the_storage_folder_goes_is_named(once_run: Workspace, tmp_path: Path) -> None:
    ws = _copy(once_run, tmp_path / "ws")
    shutil.rmtree(ws.home / "storage")
    (ws.home / "storage").write_text("not a folder\n")
    assert_clean_failure(_run(ws), str(ws.home / "storage"), "File exists", code=1)


def test_a_disk_that_fills_up_under_the_storage_is_named_not_a_traceback(tmp_path: Path) -> None:
    # A fresh instance: its first tables are written past a 20 kB file size limit (EFBIG, as on a full disk).
    ws = make_workspace(tmp_path, (CAPABILITY,))
    failed = _run(ws, fsize=20_000)
    assert_clean_failure(failed, str(ws.home / "storage"), "free disk space", code=1)
    again = _run(ws)
    assert again.returncode == 0 and temp_files(ws.data) == [], again.stdout + again.stderr


def _dataset_version(stdout: str) -> str:
    return next(line.split()[-1] for line in stdout.splitlines() if line.strip().startswith("dataset version"))
