"""Fault corpus, a stray episode file far above a command's `--out`: a teacher's rollout file left in the home
folder or the temp folder (copied there for a look, a download), an eval's file likewise, and then
`eval --out ~/evals/model-a`, `rollout S --out ~/work/T` or `--out $TMPDIR/run/eval`.

`episode_output_problem` refuses an `--out` inside a folder that holds another writer's episodes, since every reader
of that folder would meet this run's among them (`eval --out T/eval` in the teacher's rollout T). On main the walk went
up every parent to `/`: a single file in `~` or `/tmp` refused every eval, RL run and rollout anywhere below it
("--out ... is inside /home/u, which holds the teacher's episodes ..."; nobody curates their home folder), and each
run read the Parquet footers of every file in every parent. Now the walk stops below the places many unrelated things
share (the home folder, the temp folder, `/`): those are not one stage's output (a mount point is checked and ends the
walk: `test_faults_output_mounts.py`). Regression guard: a
rollout folder inside the home folder still refuses an eval into it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coworkenv.store.stages import read_trajectories, write_trajectories
from tests.faults.harness import refused, specs_and_trajectories, succeeded
from tests.support.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Specs and the teacher's rollout of them (procedural, cheap), made once."""
    return specs_and_trajectories(tmp_path_factory.mktemp("ceiling"))


def _eval(url: str, specs: Path, out: Path) -> list[str]:
    return ["eval", "--llm", url, "--model", "model-a", "--max-steps", "2", "--envs", str(specs), "--out", str(out)]


def _stray(made: dict[str, Path], where: Path, writer: str) -> Path:
    """A `writer`'s episode file dropped straight into `where` (the teacher's records, marked as `writer`'s)."""
    where.mkdir(parents=True, exist_ok=True)
    records = read_trajectories(made["traj"])
    return write_trajectories(records, where, written_by=writer)


@pytest.mark.parametrize("shared", ["HOME", "TMPDIR"])
def test_an_eval_below_a_shared_folder_holding_a_stray_rollout_file_runs(
        made: dict[str, Path], tmp_path: Path, shared: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On main: refused, "--out .../evals/model-a is inside <HOME>, which holds the teacher's episodes"."""
    folder = tmp_path / shared.lower()
    _stray(made, folder, "rollout")
    monkeypatch.setenv(shared, str(folder))
    out = folder / "evals" / "model-a"
    with FakeOpenAIServer() as server:
        succeeded(_eval(f"{server.url}/v1", made["specs"], out))
    assert len(list((out / "runs").glob("*.parquet"))) == 1


def test_a_rollout_below_a_home_folder_holding_a_stray_evals_file_runs(
        made: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On main: refused, "--out ~/work/T is inside <HOME>, which holds an eval's episodes over held-out envs"."""
    home = tmp_path / "home"
    _stray(made, home, "eval")
    monkeypatch.setenv("HOME", str(home))
    out = home / "work" / "T"
    succeeded(["rollout", str(made["specs"]), "--out", str(out)])
    assert len(list(out.glob("*.parquet"))) == 1


def test_guard_an_eval_into_a_rollout_folder_inside_the_home_folder_is_refused(
        made: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ceiling is the shared folder itself: a stage's folder below it is checked as before."""
    home = tmp_path / "home"
    traj = Path(shutil.copytree(made["traj"], home / "runs" / "T"))
    monkeypatch.setenv("HOME", str(home))
    out = traj / "evals" / "model-a"
    with FakeOpenAIServer() as server:
        refused(_eval(f"{server.url}/v1", made["specs"], out), f"--out {out} is inside {traj}",
                "the teacher's episodes")
        assert server.stats()["requests"] == 0
