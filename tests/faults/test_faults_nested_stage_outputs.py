"""Fault corpus, another stage's output inside a trajectories folder T: `coworkenv eval --out T/eval` (or
`--out T`, or deeper), a `train rl --out` whose `rollouts/step-*` land in T, the `rl_rollouts` asset's file, SFT
shards or specs copied into T; then `coworkenv curate T` (or `read_trajectories(T)`), and a second
`rollout --out T`.

On main every trajectory reader of a folder took every `*.parquet` below it: `curate T` after `eval --out T/eval`
took the eval's episodes, over HELD-OUT envs, as training input (input_rows 4 = the rollout's 2 + the eval's 2; a
real model's passing episodes would have been trained on), a student's RL episodes likewise, and SFT shards or specs
in T stopped curate on "not a trajectories file ... write trajectories with `coworkenv rollout`" for a user who
had; a second `rollout --out T` was refused as if the eval's episodes were an earlier rollout's. Now the stage
knows the other stages' files (`coworkenv/store/stages/trajectories.py: other_stage_files`: `D/runs` beside
`D/eval_report.json`, `R/rollouts/step-*`, an `rl_step`, `spec_json` or SFT-only set of columns): the folder's
readers leave them out of the teacher's episodes, and curate (and `read_trajectories`) refuse the folder before any
work with one line naming each file, what it is and what to do. Regression guard: rollout output in subfolders of T
is taken as before.

Since episode files are marked with their writer (tests/faults/test_faults_episode_marks.py), `eval --out T/eval`
itself is refused before any request (the cases here copy an eval's folder into T, as an older release left it),
the RL cases below use files marked by their writer and files of an older release (no mark, told by their layout or
`rl_step` column), and `curate D/runs` (an eval's runs named as such), taken here on purpose before, is refused: it
trained on held-out envs all the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from coworkenv.rollout import trajectories_table
from coworkenv.store.stages import RL_ROLLOUTS, StageError, read_sft, read_trajectories, sft_files
from tests.faults.harness import refused, rollout_and_eval, snapshot, succeeded
from tests.support.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Train specs and their rollout T; held-out specs and an eval of them (a stub server) in E."""
    return rollout_and_eval(tmp_path_factory.mktemp("nested"))


def _traj(made: dict[str, Path], tmp_path: Path) -> Path:
    return Path(shutil.copytree(made["traj"], tmp_path / "T"))


def _eval_into(made: dict[str, Path], where: Path) -> Path:
    """The eval's folder (its report and runs) as `eval --out WHERE` leaves it."""
    shutil.copytree(made["eval"], where, dirs_exist_ok=True)
    return next((where / "runs").glob("*.parquet"))


def _curate_refused(traj: Path, tmp_path: Path, *needles: str) -> None:
    before = snapshot(traj)
    out = tmp_path / "sft"
    refused(["curate", str(traj), "--out", str(out)], f"{traj} holds", "not a trajectories file",
            "nothing read", *needles)
    assert not out.exists() and snapshot(traj) == before


def test_eval_run_into_a_subfolder_of_the_rollout_then_curate_is_refused_naming_the_held_out_episodes(
        made: dict[str, Path], tmp_path: Path) -> None:
    """The case measured: `eval --out T/eval` then `curate T` (on main: input_rows 4, exit 0). The eval itself is
    refused now, before any request; its folder left there by an older release is refused by curate."""
    traj = _traj(made, tmp_path)
    with FakeOpenAIServer() as server:
        refused(["eval", "--llm", f"{server.url}/v1", "--model", "model-a", "--max-steps", "2", "--envs",
                 str(made["heldout"]), "--out", str(traj / "eval")], f"--out {traj / 'eval'} is inside {traj}")
        assert server.stats()["requests"] == 0 and not (traj / "eval").exists()
    runs = _eval_into(made, traj / "eval")
    _curate_refused(traj, tmp_path, str(runs), "an eval's episodes over held-out envs",
                    "held-out envs would reach training", f"Move {traj / 'eval'} out of {traj}")


@pytest.mark.parametrize("where", ["T", "T/evals/model-a"])
def test_an_eval_folder_as_t_itself_or_deeper_is_refused_too(made: dict[str, Path], tmp_path: Path,
                                                              where: str) -> None:
    """`eval --out T` (report and runs in the rollout's own folder) and `eval --out T/evals/model-a`."""
    traj = _traj(made, tmp_path)
    runs = _eval_into(made, tmp_path / where)
    top = traj / "runs" if where == "T" else traj / "evals"
    _curate_refused(traj, tmp_path, str(runs), "held-out envs would reach training", f"Move {top} out of")


def _student_episodes(made: dict[str, Path], marked: bool) -> pa.Table:
    """The eval's episodes as a student's (RL writes the same records): marked by the RL writer, or unmarked as an
    older release wrote them."""
    records = read_trajectories(next((made["eval"] / "runs").glob("*.parquet")), written_by="eval")
    table = trajectories_table(records)
    return table.replace_schema_metadata({b"coworkenv.written_by": b"rl"} if marked else None)


@pytest.mark.parametrize("marked", [True, False], ids=["marked", "older release"])
def test_a_students_rl_rollouts_under_t_are_refused(made: dict[str, Path], tmp_path: Path, marked: bool) -> None:
    """`train rl --out T/rl` with rollout.save_rollouts on: T/rl/rollouts/step-0001-rank-0/trajectories-*.parquet."""
    traj = _traj(made, tmp_path)
    step = tmp_path / "T" / "rl" / "rollouts" / "step-0001-rank-0"
    step.mkdir(parents=True)
    pq.write_table(_student_episodes(made, marked), step / "trajectories-0.parquet")
    _curate_refused(traj, tmp_path, str(step / "trajectories-0.parquet"), "a student's RL episodes",
                    "read as the teacher's episodes", f"Move {traj / 'rl'} out of")


@pytest.mark.parametrize("marked", [True, False], ids=["marked", "older release"])
def test_the_rl_rollouts_assets_file_under_t_is_refused(made: dict[str, Path], tmp_path: Path, marked: bool) -> None:
    """The `rl_rollouts` asset's table (trajectory columns and `rl_step`) copied into T."""
    traj = _traj(made, tmp_path)
    table = _student_episodes(made, marked)
    table = table.append_column("rl_step", pa.array([1] * table.num_rows, pa.int32()))
    if marked:
        RL_ROLLOUTS.write(RL_ROLLOUTS.check(table), traj / "rl_rollouts.parquet", written_by="rl")
    else:
        pq.write_table(table, traj / "rl_rollouts.parquet")
    _curate_refused(traj, tmp_path, str(traj / "rl_rollouts.parquet"), "a student's RL episodes",
                    "coworkenv.written_by=rl" if marked else "an rl_step column")


def test_sft_shards_under_t_are_named_as_sft_shards(made: dict[str, Path], tmp_path: Path) -> None:
    """A curate's output copied into T (on main: "not a trajectories file, no column ...; write trajectories with
    `coworkenv rollout`", for a user who had)."""
    traj = _traj(made, tmp_path)
    succeeded(["curate", str(made["traj"]), "--out", str(tmp_path / "curated")])
    shutil.copytree(tmp_path / "curated", traj / "curated")
    shard = sorted((traj / "curated").glob("*.parquet"))[0]
    _curate_refused(traj, tmp_path, str(shard), "SFT shards (curate's output)")


def test_specs_under_t_are_named_as_specs(made: dict[str, Path], tmp_path: Path) -> None:
    """synth's output copied into T (on main: "not a trajectories file, no column record_id, ...")."""
    traj = _traj(made, tmp_path)
    shutil.copytree(made["heldout"], traj / "heldout-specs")
    spec = next((traj / "heldout-specs").glob("*.parquet"))
    _curate_refused(traj, tmp_path, str(spec), "specs or envs (a spec_json column")


def test_read_trajectories_of_a_folder_with_an_eval_inside_raises(made: dict[str, Path], tmp_path: Path) -> None:
    """The library reader (the one `train rl` reports and scripts use): on main it returned 4 records."""
    traj = _traj(made, tmp_path)
    runs = _eval_into(made, traj / "eval")
    with pytest.raises(StageError, match="held-out envs would reach training") as raised:
        read_trajectories(traj)
    assert str(runs) in str(raised.value)


def test_a_second_rollout_into_t_is_not_refused_for_the_evals_episodes(made: dict[str, Path],
                                                                        tmp_path: Path) -> None:
    """On main: "--out T already holds 2 episodes of 2 envs that the specs given do not hold (in T/eval/runs/...):
    an earlier rollout's", which they are not; the eval's files are not the rollout stage's."""
    traj = _traj(made, tmp_path)
    _eval_into(made, traj / "eval")
    output = succeeded(["rollout", str(made["train"]), "--out", str(traj), "--seed", "7"])
    assert "2 episodes in 2 envs" in output


def test_an_evals_runs_named_as_such_are_refused(made: dict[str, Path], tmp_path: Path) -> None:
    """`curate D/runs`, taken on purpose before (a guard here), trained on held-out envs all the same: refused now
    that an eval's files say who wrote them (tests/faults/test_faults_episode_marks.py)."""
    runs = Path(shutil.copytree(made["eval"], tmp_path / "D")) / "runs"
    before = snapshot(runs)
    refused(["curate", str(runs), "--out", str(tmp_path / "sft")], "an eval's episodes over held-out envs",
            "coworkenv.written_by=eval", "nothing read")
    assert snapshot(runs) == before and not (tmp_path / "sft").exists()


def test_guard_rollouts_in_subfolders_of_t_are_all_taken(made: dict[str, Path], tmp_path: Path) -> None:
    """Regression guard: two rollouts in T/a and T/b (and an eval beside T, not inside it) are curated together."""
    traj = tmp_path / "T"
    shutil.copytree(made["traj"], traj / "a")
    succeeded(["rollout", str(made["train"]), "--out", str(traj / "b"), "--seed", "7"])
    _eval_into(made, tmp_path / "T-eval")
    output = succeeded(["curate", str(traj), "--out", str(tmp_path / "sft"), "--json"])
    assert orjson.loads(output)["input_rows"] == 4


@pytest.mark.parametrize("folder", ["eval", "traj"])
def test_trajectories_given_as_sft_data_are_refused(made: dict[str, Path], folder: str) -> None:
    """The other direction, `train sft --data D` (`load_train_split`: `read_sft(sft_files(D))`) on an eval's folder
    or a rollout's: on main its trajectory files (messages and tools columns, no shard names) were read as SFT shards,
    every row a train row: the held-out envs' episodes, or uncurated, failed episodes, trained on."""
    with pytest.raises(StageError, match=r"a trajectories file .* not an SFT shard; curate its folder"):
        read_sft(sft_files(made[folder]))
