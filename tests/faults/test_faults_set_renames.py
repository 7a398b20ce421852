"""Fault corpus, a writer killed while it puts a set of files in place. `files_together` (validate's tables and funnel,
eval's report and its episodes, curate's shards and report) writes every file of a set before the first rename, so a
full disk leaves the earlier set whole; but a kill -9 between the renames left some files of the new run beside the
rest of the earlier one, and nothing told a reader: validate's `accepted.parquet` of one run read beside the
`funnel.json` and `rejected.parquet` of another, an eval's episodes beside another eval's report. Worse, the next
write into the folder swept the killed writer's temp files as litter, and with them the rest of the set: the mix
became for good.

What must hold: a reader sees the earlier set or the whole new one. Since this round a set is put in place after a
journal naming its renames (`.set-...json`, in each of its folders); a kill leaves the journal, and the next reader or
writer of the folder completes the renames first (`coworkenv.atomic.finish_interrupted_sets`).

The library cases run `tests.faults.scenarios.output_set` in a child (about a second each: imports), killed right
after its first or second rename, over a first whole run; then a reader runs in this process. One case runs the real
`coworkenv validate` in the child.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from coworkenv.atomic import atomic_write_bytes
from coworkenv.cli import app
from coworkenv.examples import example_names
from coworkenv.store.stages import ENVS, REJECTED, TRAJECTORIES, read_spec_rows
from coworkenv.store.stages.trajectories import trajectory_files
from tests.faults.harness import run_child, spec_folder, temp_files
from tests.faults.scenarios import output_set

SIGKILLED = -9
SCENARIO = "tests.faults.scenarios:output_set"


def _runs(out: Path) -> dict[str, str]:
    """Which run each file of the set in `out` is of (its tag), as it stands on disk."""
    def tag(value: str) -> str:
        return value.rsplit("-", 1)[-1]

    return {
        "accepted.parquet": tag(ENVS.read(out / "accepted.parquet", ["env_id"]).column("env_id")[0].as_py()),
        "rejected.parquet": tag(REJECTED.read(out / "rejected.parquet", ["spec_id"]).column("spec_id")[0].as_py()),
        "funnel.json": orjson.loads((out / "funnel.json").read_bytes())["run"],
        "eval_report.json": orjson.loads((out / "eval_report.json").read_bytes())["run"],
        "runs/episodes.parquet": tag(TRAJECTORIES.read(out / "runs" / "episodes.parquet", ["env_id"])
                                     .column("env_id")[0].as_py()),
    }


@pytest.fixture(scope="module")
def killed_reruns(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """By N: a folder holding run 1 whole, over which run 2 was killed right after its N-th rename (one child each,
    shared: each case reads a copy, the journal's paths are relative to its folder)."""
    folders = {}
    for after in (1, 2):
        out = tmp_path_factory.mktemp(f"killed-after-{after}") / "out"
        output_set(str(out), "1")
        killed = run_child([str(out), "2"], call=SCENARIO, kill=(f"coworkenv.atomic:_place:{after}:after",))
        assert killed.returncode == SIGKILLED, killed.stderr
        folders[after] = out
    return folders


def _killed_rerun(killed_reruns: dict[int, Path], tmp_path: Path, after: int) -> Path:
    out = tmp_path / "out"
    shutil.copytree(killed_reruns[after], out)
    return out


READERS: dict[str, Callable[[Path], Any]] = {
    "ENVS.read": lambda out: ENVS.read(out / "accepted.parquet"),
    "REJECTED.read": lambda out: REJECTED.read(out / "rejected.parquet"),
    "read_spec_rows": lambda out: read_spec_rows(out),
    "trajectory_files": lambda out: trajectory_files(out / "runs", written_by="eval"),
}


@pytest.mark.parametrize("after", [1, 2])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_reader_after_a_kill_between_the_renames_sees_one_run(killed_reruns: dict[int, Path], tmp_path: Path,
                                                                reader: str, after: int) -> None:
    """On main the reader took the file as it stood: after the first rename `accepted.parquet` was run 2's while
    `rejected.parquet`, `funnel.json`, the report and its episodes were run 1's."""
    out = _killed_rerun(killed_reruns, tmp_path, after)
    READERS[reader](out)
    runs = _runs(out)
    assert set(runs.values()) == {"2"}, f"a mix of two runs: {runs}"
    assert not list(out.rglob(".set-*")) and temp_files(out) == []  # the journal is gone with the temps


def test_the_next_write_into_the_folder_completes_the_set_instead_of_sweeping_it(killed_reruns: dict[int, Path],
                                                                                 tmp_path: Path) -> None:
    """Any write into the folder (here a note beside the tables) sweeps the temp files of writers that are gone: on
    main it swept the rest of the killed set with them, and the mix of run 2's `accepted.parquet` with run 1's other
    files stayed for good, whatever read it later."""
    out = _killed_rerun(killed_reruns, tmp_path, 1)
    atomic_write_bytes(out / "notes.txt", b"looked at it\n")
    assert set(_runs(out).values()) == {"2"}, _runs(out)


def test_validate_killed_between_its_renames_leaves_one_run_for_its_readers(tmp_path: Path) -> None:
    """`coworkenv validate` run again into its folder over other specs, killed after its first rename: on main
    `accepted.parquet` held the second run's envs beside the first run's `rejected.parquet` and `funnel.json` (whose
    counts no longer matched). A reader (`coworkenv rollout OUT` reads the folder's specs) must find the second run's
    three files."""
    specs_one = spec_folder(tmp_path / "specs-1", example_names()[:1])
    specs_two = spec_folder(tmp_path / "specs-2", example_names()[1:2])
    reference, out = tmp_path / "reference", tmp_path / "out"
    runner = CliRunner()
    assert runner.invoke(app, ["validate", str(specs_two), "--out", str(reference)]).exit_code == 0
    assert runner.invoke(app, ["validate", str(specs_one), "--out", str(out)]).exit_code == 0
    killed = run_child(["validate", str(specs_two), "--out", str(out)], kill=("coworkenv.atomic:_place:1:after",))
    assert killed.returncode == SIGKILLED, killed.stderr
    read_spec_rows(out)
    for name in ("accepted.parquet", "rejected.parquet", "funnel.json"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), f"{name} is of the first run"
