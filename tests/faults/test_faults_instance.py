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
def undisturbed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, str]:
    """A workspace after one whole run, and the dataset version that undisturbed run ended with."""
    ws = make_workspace(tmp_path_factory.mktemp("instance"), (CAPABILITY,))
    done = _run(ws)  # a child of its own, not the fork server's, whose 120 s limit a loaded machine can pass
    assert done.returncode == 0, done.stdout + done.stderr
    return ws, _dataset_version(done.stdout)


@pytest.fixture(scope="module")
def once_run(undisturbed: tuple[Workspace, str]) -> Workspace:
    """The workspace after one whole run: the reference every case copies."""
    return undisturbed[0]


def _copy(ws: Workspace, where: Path) -> Workspace:
    """The workspace copied to `where` (dagster.yaml's absolute storage paths pointed there too)."""
    shutil.copytree(ws.home.parent, where)
    config = where / "home" / "dagster.yaml"
    config.write_text(config.read_text().replace(str(ws.home.parent), str(where)))
    return Workspace(where / "home", where / "data", where / "taxonomy", ws.specs)


def _run(ws: Workspace, fsize: int | None = None) -> ChildResult:
    return run_child(["--no-train"], call=PIPELINE, env=ws.env(), fsize=fsize, preloaded=True)


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
def test_a_damaged_run_storage_is_named_with_what_to_do(once_run: Workspace, tmp_path: Path,
                                                        damage: Callable[[Path], None]) -> None:
    ws = _copy(once_run, tmp_path / "ws")
    runs_db = ws.home / "storage" / "history" / "runs.db"
    damage(runs_db)
    data = snapshot(ws.data)
    assert_clean_failure(_run(ws), str(runs_db), "is damaged", f"move the folder {ws.home / 'storage'} aside",
                         code=1)
    assert snapshot(ws.data) == data


def test_once_a_damaged_run_storage_is_moved_aside_the_run_ends_as_before(undisturbed: tuple[Workspace, str],
                                                                           tmp_path: Path) -> None:
    """What the line of the test above says to do, done: the run ends where the undisturbed one did. Once the folder
    is moved aside, what was damaged in it (garbage, a file cut short) no longer matters, so one damage is run
    through to the end, not each (a whole pipeline run apiece, the same run twice)."""
    ws = _copy(undisturbed[0], tmp_path / "ws")
    runs_db = ws.home / "storage" / "history" / "runs.db"
    _cut(runs_db)
    (ws.home / "storage").rename(ws.home / "storage.damaged")  # what the line says to do
    again = _run(ws)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _dataset_version(again.stdout) == undisturbed[1]  # where the undisturbed run ended
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


def test_a_failing_data_file_is_named_as_itself_not_as_the_instance_storage(once_run: Workspace,
                                                                            tmp_path: Path) -> None:
    # A read error on a recorded output (a failing disk under COWORKENV_DATA_DIR) while the run checks what is
    # complete: it had been reported as "the Dagster instance storage in DAGSTER_HOME".
    ws = _copy(once_run, tmp_path / "ws")
    data = snapshot(ws.data)
    failed = run_child(["--no-train"], call=PIPELINE, env=ws.env(),
                       fail=("pipelines.staleness:file_sha256:1:EIO:path",), preloaded=True)
    # (The copy's instance records the files of `once_run`'s data folder, and its data folder with them: they are
    # read at the same place in the copy's own data folder.)
    line = assert_clean_failure(failed, str(ws.data / "store" / "task_specs"), ".parquet: Input/output error",
                                "input/output error", "`dmesg`", code=1)
    assert "instance storage" not in line and str(ws.home) not in line
    assert snapshot(ws.data) == data


@pytest.mark.parametrize("blocked", ["a file", "a looping link"])
def test_a_step_that_fails_says_why_not_only_that_dagster_wrapped_it(tmp_path: Path, blocked: str) -> None:
    ws = make_workspace(tmp_path, (CAPABILITY,))
    shutil.rmtree(ws.data)
    ws.data.mkdir()  # the data folder itself as a file or a looping link is refused before any run (faults40)
    store = ws.data / "store"
    if blocked == "a file":
        store.write_text("not a folder\n")
    else:
        store.symlink_to(store)
    failed = _run(ws)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr.split("failed; see it with")[-1]
    step = next(line for line in failed.stderr.splitlines() if line.startswith("  task_specs: "))
    assert "Error occurred while executing" not in step and str(ws.data) in step, failed.stderr
    assert ("a file stands where a folder is expected" if blocked == "a file" else "loops") in step, step


@pytest.mark.parametrize("limit", ["14", "19"])
def test_a_limit_on_open_files_a_run_cannot_raise_is_refused_before_it_starts(tmp_path: Path, limit: str) -> None:
    # `ulimit -n 14` (soft and hard): a run failed inside its first step with 160 lines of SQLAlchemy errors
    # ("unable to open database file"); at 19, enough for one capability, the next capability could hit it.
    ws = make_workspace(tmp_path, (CAPABILITY,))
    failed = run_child(["--no-train"], call=PIPELINE, env=ws.env(), nofile=limit)
    assert_clean_failure(failed, f"at most {limit} files", "ulimit -n", code=1)
    assert snapshot(ws.data) == {} and not (ws.home / "storage").exists()


def test_a_low_soft_limit_on_open_files_is_raised_and_the_run_ends_as_usual(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, (CAPABILITY,))
    done = run_child(["--no-train"], call=PIPELINE, env=ws.env(), nofile="14:4096")
    assert done.returncode == 0 and _dataset_version(done.stdout), done.stdout + done.stderr
