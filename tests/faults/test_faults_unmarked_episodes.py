"""Fault corpus, episode files from before the writer's mark (`coworkenv.written_by`, faults20) outside the folders
their writers made: an eval's file copied out of `D/runs` (beside the rollout's files, into a subfolder of them, to a
folder of its own, `D/runs` copied without its report) and a student's RL step file moved out of `R/rollouts/step-*`.

On main an unmarked file was judged by its layout, then its columns, and any other unmarked trajectory file was the
teacher's: measured, `curate` took each of these as the teacher's episodes (input_rows 4 = the rollout's 2 and the
eval's 2: held-out envs trained on; or the eval's or the student's alone) and `read_trajectories` read them. Now an
unmarked file is also told by who acted in it (its `teacher` column): the oracle teacher only acts in a rollout,
`student` only in an RL run; an LLM's episodes (a teacher's rollout or an eval, the same rows) are refused, naming
the file, and `coworkenv mark-episodes PATH --written-by rollout|eval|rl` records who wrote them, once. Regression
guards: an old oracle rollout file is the teacher's; an LLM file marked with the command is taken; a marked file is
never re-marked.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from coworkenv.store.stages import StageError, read_trajectories, write_trajectories
from tests.faults.harness import refused, rollout_and_eval, snapshot, succeeded

pytestmark = pytest.mark.timeout(900)
MARK = b"coworkenv.written_by"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Train specs and their rollout T (the oracle teacher); held-out specs and an eval of them (a stub LLM) in E."""
    return rollout_and_eval(tmp_path_factory.mktemp("unmarked"))


def _unmarked(file: Path) -> Path:
    """`file` as written before episode files were marked: its key-value metadata gone."""
    pq.write_table(pq.read_table(file).replace_schema_metadata(None), file)
    return file


def _eval_file(made: dict[str, Path]) -> Path:
    return next((made["eval"] / "runs").glob("*.parquet"))


def _old_eval_file(made: dict[str, Path], where: Path) -> Path:
    """An eval's episode file from before the mark, at `where` (a folder, created)."""
    where.mkdir(parents=True, exist_ok=True)
    return _unmarked(Path(shutil.copy(_eval_file(made), where)))


def _old_rl_file(made: dict[str, Path], where: Path) -> Path:
    """A student's RL episodes from before the mark (`EnvRollout` acts as teacher 'student'), at `where`."""
    records = [dataclasses.replace(r, teacher="student") for r in read_trajectories(_eval_file(made), written_by="eval")]
    return _unmarked(write_trajectories(records, where, written_by="rl"))


def _curate_refused(given: Path, tmp_path: Path, *needles: str) -> str:
    before = snapshot(given if given.is_dir() else given.parent)
    out = tmp_path / "sft"
    line = refused(["curate", str(given), "--out", str(out)], "nothing read", *needles)
    assert not out.exists() and snapshot(given if given.is_dir() else given.parent) == before
    return line


EVAL_WHERE = ["beside the rollout's files", "in a subfolder of the rollout", "its runs folder renamed, named itself",
              "D/runs copied without its report", "the file alone, named itself"]


@pytest.mark.parametrize("where", EVAL_WHERE)
def test_curate_refuses_an_old_evals_file_outside_its_runs_folder(made: dict[str, Path], tmp_path: Path,
                                                                 where: str) -> None:
    """On main each was the teacher's: input_rows 4 (T's 2 and the eval's 2 over held-out envs) or the eval's 2."""
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    if where == "beside the rollout's files":
        given, file = traj, _old_eval_file(made, traj)
    elif where == "in a subfolder of the rollout":
        given, file = traj, _old_eval_file(made, traj / "kept")
    elif where == "its runs folder renamed, named itself":
        file = _old_eval_file(made, tmp_path / "runs-model-a")
        given = file.parent
    elif where == "D/runs copied without its report":
        file = _old_eval_file(made, tmp_path / "D" / "runs")
        given = file.parent
    else:
        given = file = _old_eval_file(made, tmp_path / "downloads")
    line = _curate_refused(given, tmp_path, str(file), "written before episode files were marked",
                           "nothing in the file tells which", "coworkenv mark-episodes", "held-out envs may reach")
    assert "llm" in line


@pytest.mark.parametrize("where", ["beside the rollout's files", "its step folder renamed", "the file named itself"])
def test_curate_refuses_an_old_students_rl_file_outside_its_step_folder(made: dict[str, Path], tmp_path: Path,
                                                                       where: str) -> None:
    """On main each was the teacher's (no rl_step column, no step folder)."""
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    if where == "beside the rollout's files":
        given, file = traj, _old_rl_file(made, traj)
    elif where == "its step folder renamed":
        given, file = traj, _old_rl_file(made, traj / "rl-step-1")
    else:
        file = _old_rl_file(made, tmp_path / "step-1")
        given = file
    _curate_refused(given, tmp_path, str(file), "a student's RL episodes", "teacher 'student'",
                    "written before episode files were marked")


def test_read_trajectories_refuses_an_old_evals_file_outside_its_runs_folder(made: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    """The library reader (scripts, notebooks): on main it returned the eval's 2 records as the teacher's."""
    file = _old_eval_file(made, tmp_path / "downloads")
    with pytest.raises(StageError, match="nothing in the file tells which") as raised:
        read_trajectories(file)
    assert str(file) in str(raised.value)


def test_guard_an_old_oracle_rollout_file_alone_is_the_teachers(made: dict[str, Path], tmp_path: Path) -> None:
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    _unmarked(next(traj.glob("*.parquet")))
    output = succeeded(["curate", str(traj), "--out", str(tmp_path / "sft"), "--json"])
    assert orjson.loads(output)["input_rows"] == 2


def test_an_old_llm_file_marked_as_the_teachers_is_taken(made: dict[str, Path], tmp_path: Path) -> None:
    """The way out the refusal names: the person who knows says who wrote it, once; the rows are kept."""
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    file = _old_eval_file(made, traj)  # here: an LLM teacher's rollout from before the mark (the same rows)
    rows = pq.read_table(file).num_rows
    succeeded(["mark-episodes", str(traj), "--written-by", "rollout"])
    assert (pq.read_metadata(file).metadata or {}).get(MARK) == b"rollout" and pq.read_table(file).num_rows == rows
    output = succeeded(["curate", str(traj), "--out", str(tmp_path / "sft"), "--json"])
    assert orjson.loads(output)["input_rows"] == 2 + rows


@pytest.mark.parametrize("given", ["a file marked by another writer", "not an episode file", "no such path",
                                   "an unknown writer"])
def test_mark_episodes_refuses_and_changes_nothing(made: dict[str, Path], tmp_path: Path, given: str) -> None:
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    old = _old_eval_file(made, traj)
    writer, needle = "rollout", ""
    if given == "a file marked by another writer":
        other = Path(shutil.copy(_eval_file(made), traj / "evaluated.parquet"))
        needle = f"{other} is marked coworkenv.written_by=eval"
    elif given == "not an episode file":
        pq.write_table(pq.read_table(old, columns=["env_id"]), traj / "ids.parquet")
        needle = "not a trajectories file"
    elif given == "no such path":
        traj = traj / "missing"
        needle = str(traj)
    else:
        writer, needle = "teacher", "no writer of episode files"
    before = snapshot(tmp_path)
    refused(["mark-episodes", str(traj), "--written-by", writer], needle)
    assert snapshot(tmp_path) == before
