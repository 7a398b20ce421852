"""Fault corpus, episode files of one stage taken for another's: the teacher's episodes (`coworkenv rollout`, the
teacher_trajectories asset), an eval's over held-out envs (`coworkenv eval --out D`: `D/runs`) and a student's RL
episodes (`train rl`: `R/rollouts/step-*`, the rl_rollouts asset) are all trajectory Parquet files, alike column for
column. An eval's file copied beside the rollout's or into a subfolder of it ("kept"), `D/runs` renamed or named to
curate itself, an RL step file moved out of its step folder, an eval run with `--out` inside the rollout's folder.

On main only the folder layout told them apart (`other_stage_files`: `D/runs` beside `D/eval_report.json`,
`R/rollouts/step-*`, as subfolders of the folder read): measured, `curate T` with an eval's file in `T/kept` or beside
the rollout's took it (input_rows 4 = the rollout's 2 + the eval's 2: held-out envs trained on), `curate D/runs` and
`curate D/runs/<file>` took an eval's episodes as the teacher's, `read_trajectories` likewise, and `eval --out T`
or `--out T/eval`, `train rl --out T/rl` and `rollout --out D/runs` wrote into another stage's folder. Now every
episode file carries who wrote it in its Parquet key-value metadata (`coworkenv.written_by` = rollout / eval / rl,
set by the stage writer, `Stage.write` / `Stage.store`, which refuses a trajectory table without it); curate and
`read_trajectories` take the teacher's files only and name each other file with its writer, wherever it sits; files
written before the mark are judged by their layout as before, and now also where the folder or file named is itself
an eval's runs or an RL step. `eval --out` and `train rl --out` at or inside a folder of other episodes (or, for
eval, above one) are refused before any request or model is built. Regression guards: old unmarked rollout files,
an eval beside the rollout, an eval into its own earlier folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from coworkenv.store.stages import StageError, read_trajectories, write_trajectories
from tests.faults.harness import ROOT, refused, rollout_and_eval, snapshot, succeeded
from tests.support.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(900)
MARK = b"coworkenv.written_by"


def _eval(url: str, specs: Path, out: Path) -> list[str]:
    return ["eval", "--llm", url, "--model", "model-a", "--max-steps", "2", "--envs", str(specs), "--out", str(out)]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Train specs and their rollout T; held-out specs and an eval of them (a stub server) in E."""
    return rollout_and_eval(tmp_path_factory.mktemp("marks"))


def _mark(file: Path) -> bytes | None:
    return (pq.read_metadata(file).metadata or {}).get(MARK)


def _unmarked(file: Path) -> Path:
    """`file` as written before episode files were marked: its key-value metadata gone."""
    table = pq.read_table(file)
    pq.write_table(table.replace_schema_metadata(None), file)
    assert _mark(file) is None
    return file


def _eval_file(made: dict[str, Path]) -> Path:
    return next((made["eval"] / "runs").glob("*.parquet"))


def _rl_step(made: dict[str, Path], where: Path) -> Path:
    """A student's episodes as `EnvRollout` writes them at an RL step (here: the eval's records)."""
    return write_trajectories(read_trajectories(_eval_file(made), written_by="eval"), where, written_by="rl")


def _curate_refused(given: Path, tmp_path: Path, *needles: str) -> str:
    before = snapshot(given.parent)
    out = tmp_path / "sft"
    line = refused(["curate", str(given), "--out", str(out)], "nothing read", *needles)
    assert not out.exists() and snapshot(given.parent) == before
    return line


def test_every_episode_writer_marks_its_files(made: dict[str, Path], tmp_path: Path) -> None:
    """The marks: a rollout's file, an eval's runs, an RL step's file (`EnvRollout` writes through the same writer)."""
    assert [_mark(f) for f in made["traj"].glob("*.parquet")] == [b"rollout"]
    assert [_mark(f) for f in (made["eval"] / "runs").glob("*.parquet")] == [b"eval"]
    assert _mark(_rl_step(made, tmp_path / "step-0001-rank-0")) == b"rl"


def test_a_trajectory_table_written_without_saying_who_wrote_it_is_refused(tmp_path: Path) -> None:
    """The class at its root: a new writer (an asset, a script) cannot write an episode file without a mark."""
    from coworkenv.store.stages import TRAJECTORIES, TRAJECTORY_SCHEMA

    with pytest.raises(StageError, match="written_by"):
        TRAJECTORIES.store(TRAJECTORY_SCHEMA.empty_table(), tmp_path, "trajectories")
    assert not (tmp_path / "trajectories").exists()
    stored = TRAJECTORIES.store(TRAJECTORY_SCHEMA.empty_table(), tmp_path, "trajectories", written_by="rollout")
    assert _mark(stored.path) == b"rollout"


WHERE = ["copied beside the rollout's files", "kept in a plain subfolder", "its runs folder renamed and put inside",
         "D/runs named itself", "the file named itself", "the runs folder renamed, named itself"]


@pytest.mark.parametrize("where", WHERE)
def test_curate_refuses_an_evals_episodes_wherever_they_sit(made: dict[str, Path], tmp_path: Path,
                                                           where: str) -> None:
    """On main each was taken: input_rows 4 (T's 2 and the eval's 2 over held-out envs), or the eval's 2 alone."""
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    given, file = traj, traj / "evaluated.parquet"
    if where == "copied beside the rollout's files":
        shutil.copy(_eval_file(made), file)
    elif where == "kept in a plain subfolder":
        file = traj / "kept" / "evaluated.parquet"
        file.parent.mkdir()
        shutil.copy(_eval_file(made), file)
    elif where == "its runs folder renamed and put inside":
        shutil.copytree(made["eval"] / "runs", traj / "model-a-episodes")
        file = next((traj / "model-a-episodes").glob("*.parquet"))
    elif where == "D/runs named itself":
        given = Path(shutil.copytree(made["eval"], tmp_path / "D")) / "runs"
        file = next(given.glob("*.parquet"))
    elif where == "the file named itself":
        given = file = next((Path(shutil.copytree(made["eval"], tmp_path / "D")) / "runs").glob("*.parquet"))
    else:
        given = Path(shutil.copytree(made["eval"] / "runs", tmp_path / "runs-model-a"))
        file = next(given.glob("*.parquet"))
    _curate_refused(given, tmp_path, str(file), "an eval's episodes over held-out envs", "coworkenv.written_by=eval",
                    "held-out envs would reach training")


@pytest.mark.parametrize("where", ["beside the rollout's files", "its step folder renamed", "the step named itself"])
def test_curate_refuses_a_students_rl_episodes_wherever_they_sit(made: dict[str, Path], tmp_path: Path,
                                                                where: str) -> None:
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    given = traj
    if where == "beside the rollout's files":
        file = _rl_step(made, traj)
    elif where == "its step folder renamed":
        file = _rl_step(made, traj / "rl-step-1")
    else:
        given = tmp_path / "R" / "rollouts" / "step-0001-rank-0"
        file = _rl_step(made, given)
    _curate_refused(given, tmp_path, str(file), "a student's RL episodes", "coworkenv.written_by=rl")


def test_read_trajectories_refuses_an_evals_file_and_reads_it_when_asked_for_an_evals(made: dict[str, Path]) -> None:
    """The library reader (scripts, the RL assets): the teacher's episodes by default, another writer's on request."""
    with pytest.raises(StageError, match=r"coworkenv\.written_by=eval") as raised:
        read_trajectories(_eval_file(made))
    assert str(_eval_file(made)) in str(raised.value)
    assert {r.model for r in read_trajectories(_eval_file(made), written_by="eval")} == {"openai:model-a"}
    with pytest.raises(StageError, match=r"coworkenv\.written_by=rollout"):
        read_trajectories(made["traj"], written_by="eval")


def test_a_file_marked_by_an_unknown_writer_is_refused(made: dict[str, Path], tmp_path: Path) -> None:
    """A mark this release does not know (a newer release's stage, a hand edit): not taken as the teacher's."""
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    file = next(traj.glob("*.parquet"))
    table = pq.read_table(file)
    pq.write_table(table.replace_schema_metadata({MARK: b"dpo"}), traj / "other.parquet")
    _curate_refused(traj, tmp_path, str(traj / "other.parquet"), "coworkenv.written_by=dpo")


@pytest.mark.parametrize("where", ["D/runs named itself", "the file named itself", "an RL step named itself"])
def test_old_unmarked_files_are_refused_where_their_layout_says_eval_or_rl(made: dict[str, Path], tmp_path: Path,
                                                                           where: str) -> None:
    """Files from before the mark: their folder tells (on main `curate D/runs` took an eval's episodes, by design)."""
    if where == "an RL step named itself":
        given = tmp_path / "R" / "rollouts" / "step-0002-rank-0"
        file = _unmarked(_rl_step(made, given))
        needle = "a student's RL episodes"
    else:
        runs = Path(shutil.copytree(made["eval"], tmp_path / "D")) / "runs"
        file = _unmarked(next(runs.glob("*.parquet")))
        given, needle = (runs if where == "D/runs named itself" else file), "an eval's episodes over held-out envs"
    _curate_refused(given, tmp_path, str(file), needle, "written before episode files were marked")


def test_guard_old_unmarked_rollout_files_are_taken(made: dict[str, Path], tmp_path: Path) -> None:
    """Regression guard: a rollout's file from before the mark, with a marked one beside it, is the teacher's."""
    traj = Path(shutil.copytree(made["traj"], tmp_path / "T"))
    _unmarked(next(traj.glob("*.parquet")))
    succeeded(["rollout", str(made["train"]), "--out", str(traj), "--seed", "7"])
    output = succeeded(["curate", str(traj), "--out", str(tmp_path / "sft"), "--json"])
    assert orjson.loads(output)["input_rows"] == 4


@pytest.mark.parametrize("where", ["T", "T/eval", "T/evals/model-a", "X above T"])
def test_an_eval_out_at_inside_or_above_a_rollout_folder_is_refused_before_any_request(
        made: dict[str, Path], tmp_path: Path, where: str) -> None:
    """On main each ran and wrote its report and runs among the teacher's episodes."""
    traj = Path(shutil.copytree(made["traj"], tmp_path / "X" / "T"))
    out = tmp_path / "X" if where == "X above T" else tmp_path / "X" / where
    before = snapshot(tmp_path / "X")
    with FakeOpenAIServer() as server:
        line = refused(_eval(f"{server.url}/v1", made["heldout"], out), f"--out {out}",
                       "the teacher's episodes (`coworkenv rollout`", str(next(traj.glob("*.parquet"))))
        assert server.stats()["requests"] == 0
    assert snapshot(tmp_path / "X") == before
    assert ("beside" in line) if where != "X above T" else ("below" in line)


@pytest.mark.parametrize("where", ["beside the rollout", "its own earlier folder"])
def test_guard_an_eval_beside_the_rollout_or_into_its_own_folder_runs(made: dict[str, Path], tmp_path: Path,
                                                                      where: str) -> None:
    shutil.copytree(made["traj"], tmp_path / "T")
    out = tmp_path / "T-eval" if where == "beside the rollout" else Path(shutil.copytree(made["eval"], tmp_path / "D"))
    with FakeOpenAIServer() as server:
        succeeded(_eval(f"{server.url}/v1", made["heldout"], out))
    assert len(list((out / "runs").glob("*.parquet"))) == 1


@pytest.mark.parametrize("where", ["T/rl", "inside an eval's runs"])
def test_train_rl_out_inside_a_folder_of_other_episodes_is_refused_before_any_model(
        made: dict[str, Path], tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On main the run started (the model built, GRPO steps run) and wrote R/rollouts/step-* among them."""
    from trainers import rl

    def no_build(*_: object, **__: object) -> None:
        raise AssertionError("a model was built")

    monkeypatch.setattr(rl, "build_rl_trainer", no_build)
    holder = Path(shutil.copytree(made["traj"] if where == "T/rl" else made["eval"] / "runs", tmp_path / "T"))
    refused(["train", "rl", "--config", "rl-tiny", "--envs", str(made["train"]), "--out", str(holder / "rl")],
            f"--out {holder / 'rl'}", str(next(holder.glob("*.parquet"))), "beside")
    assert not (holder / "rl").exists()


def test_a_rollout_out_inside_an_evals_runs_is_refused(made: dict[str, Path], tmp_path: Path) -> None:
    """`rollout --out D/runs`: on main the teacher's file went in beside the eval's, under the eval's report."""
    runs = Path(shutil.copytree(made["eval"], tmp_path / "D")) / "runs"
    before = snapshot(runs)
    refused(["rollout", str(made["train"]), "--out", str(runs)], f"--out {runs}", "an eval's episodes",
            str(next(runs.glob("*.parquet"))))
    assert snapshot(runs) == before


def test_the_rl_assets_read_their_own_step_folders_as_a_students(made: dict[str, Path], tmp_path: Path) -> None:
    """`assets/rl.py` reads `R/rollouts/step-*` asking for a student's episodes (`written_by="rl"`), marked or not;
    the default reader, the teacher's, refuses them."""
    steps = tmp_path / "R" / "rollouts"
    _rl_step(made, steps / "step-0001-rank-0")
    _unmarked(_rl_step(made, steps / "step-0002-rank-0"))
    assert [len(read_trajectories(step, written_by="rl")) for step in sorted(steps.iterdir())] == [2, 2]
    with pytest.raises(StageError, match="a student's RL episodes"):
        read_trajectories(steps / "step-0002-rank-0")


def _rollout_paused(made: dict[str, Path], out: Path, tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """`rollout --out OUT` in a child, paused between its checks and its write (it holds OUT's lock, no file yet)."""
    paused, go = tmp_path / "paused", tmp_path / "go"
    child = subprocess.Popen([sys.executable, "-m", "tests.faults.child", "--call", "tests.faults.scenarios:command_pausing",
                              "--", "coworkenv.rollout:rollout_specs", str(paused), str(go), "rollout",
                              str(made["train"]), "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 300
    while not paused.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert paused.exists(), child.communicate()[0].decode()[-3000:]
    return child, go


@pytest.mark.parametrize("command", ["eval", "train rl"])
def test_an_output_inside_a_folder_a_rollout_is_writing_now_is_refused(made: dict[str, Path], tmp_path: Path,
                                                                       command: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Two terminals: `rollout --out T` running (T locked, its file not written yet) and `eval --out T/eval` or
    `train rl --out T/rl`. The locks are per folder, so neither waited, and T was still empty at the second's checks:
    on main the eval ran and wrote its runs into T, the rollout its file beside them."""
    from trainers import rl

    def no_build(*_: object, **__: object) -> None:
        raise AssertionError("a model was built")

    monkeypatch.setattr(rl, "build_rl_trainer", no_build)
    traj = tmp_path / "T"
    child, go = _rollout_paused(made, traj, tmp_path)
    try:
        with FakeOpenAIServer() as server:
            out = traj / ("eval" if command == "eval" else "rl")
            args = _eval(f"{server.url}/v1", made["heldout"], out) if command == "eval" else \
                ["train", "rl", "--config", "rl-tiny", "--envs", str(made["train"]), "--out", str(out)]
            refused(args, f"--out {out} is inside {traj}", "another command is writing now", "beside")
            assert server.stats()["requests"] == 0
    finally:
        go.touch()
        assert child.wait(timeout=300) == 0, child.communicate()[0].decode()[-3000:]
    assert [p.name for p in traj.iterdir()] == [next(traj.glob("*.parquet")).name]  # the rollout's file alone


def test_guard_an_eval_beside_a_folder_a_rollout_is_writing_runs(made: dict[str, Path], tmp_path: Path) -> None:
    """Regression guard: the lock of T holds nothing beside it (`eval --out T-eval` while the rollout runs)."""
    child, go = _rollout_paused(made, tmp_path / "T", tmp_path)
    try:
        with FakeOpenAIServer() as server:
            succeeded(_eval(f"{server.url}/v1", made["heldout"], tmp_path / "T-eval"))
    finally:
        go.touch()
        assert child.wait(timeout=300) == 0
