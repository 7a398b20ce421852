"""Fault corpus, a teacher's rollout folder that is a mount point (a Docker volume or Kubernetes volume mounted as
the output folder, `-v rollouts:/data/T`; a disk mounted for the run), then `eval --out T/eval`,
`eval --out T/evals/model-a` or `train rl --out T/rl`, also while the rollout into T is still writing.

`episode_output_problem` refuses an `--out` inside a folder that holds another writer's episodes (every reader of
that folder, `curate T`, would meet this run's among them: held-out envs trained on) or that another command is
writing now. Since faults21 its walk up from `--out` stopped below a shared folder, a mount point among them (a stray
file on a shared disk said nothing about the folders below it). On main the mount point was left out of the walk
itself: with T mounted, the eval ran and wrote its report and runs among the teacher's episodes, `train rl` went on to
build its model, and a rollout holding T's lock was not seen. Now a mount point is checked (its files and its lock)
and the walk stops above it: the file systems above it are another's. A stray episode file at the top of a mounted
disk therefore refuses an output below it, naming the file and the mount point (before: taken). Regression guards:
a rollout folder above a mount point, and a home folder that is a mount point, say nothing about an output below.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from coworkenv.atomic import folder_lock
from coworkenv.store.stages import read_trajectories, write_trajectories
from tests.faults.harness import refused, snapshot, specs_and_trajectories, succeeded
from tests.support.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(600)
Mount = Callable[[Path], Path]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Specs and the teacher's rollout of them (procedural, cheap), made once."""
    return specs_and_trajectories(tmp_path_factory.mktemp("mounts"))


@pytest.fixture
def mount(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mount]:
    """Makes a folder a mount point: a tmpfs mounted on it where this process may mount (root), else the folder
    reported as one by `os.path.ismount` (what the product asks)."""
    mounted: list[Path] = []
    reported: set[str] = set()
    ismount = os.path.ismount

    def make(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "coworkenv-test", str(folder)],
                              capture_output=True, check=False) if shutil.which("mount") else None
        if done is not None and done.returncode == 0:
            mounted.append(folder)
        else:
            reported.add(os.path.abspath(folder))
            monkeypatch.setattr(os.path, "ismount", lambda path: os.path.abspath(path) in reported or ismount(path))
        assert os.path.ismount(folder)
        return folder

    yield make
    for folder in reversed(mounted):
        subprocess.run(["umount", str(folder)], capture_output=True, check=False)


def _eval(url: str, specs: Path, out: Path) -> list[str]:
    return ["eval", "--llm", url, "--model", "model-a", "--max-steps", "2", "--envs", str(specs), "--out", str(out)]


def _rollout_into(made: dict[str, Path], folder: Path) -> Path:
    """The teacher's rollout file copied into `folder` (a mount point made beforehand); the file."""
    file = next(made["traj"].glob("*.parquet"))
    return Path(shutil.copy(file, folder / file.name))


def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from trainers import rl

    def no_build(*_: object, **__: object) -> None:
        raise AssertionError("a model was built")

    monkeypatch.setattr(rl, "build_rl_trainer", no_build)


@pytest.mark.parametrize("where", ["eval", "evals/model-a"])
def test_an_eval_into_a_rollout_folder_that_is_a_mount_point_is_refused_before_any_request(
        made: dict[str, Path], tmp_path: Path, mount: Mount, where: str) -> None:
    """On main: the eval ran (2 requests) and wrote `eval_report.json` and `runs/` among the teacher's episodes."""
    traj = mount(tmp_path / "T")
    file = _rollout_into(made, traj)
    out = traj / where
    before = snapshot(traj)
    with FakeOpenAIServer() as server:
        refused(_eval(f"{server.url}/v1", made["specs"], out), f"--out {out} is inside {traj}",
                "the teacher's episodes (`coworkenv rollout`", str(file), "beside")
        assert server.stats()["requests"] == 0
    assert snapshot(traj) == before


def test_train_rl_into_a_rollout_folder_that_is_a_mount_point_is_refused_before_any_model(
        made: dict[str, Path], tmp_path: Path, mount: Mount, monkeypatch: pytest.MonkeyPatch) -> None:
    """On main: the run went on to build its model, to write `T/rl/rollouts/step-*` among the teacher's episodes."""
    _no_model(monkeypatch)
    traj = mount(tmp_path / "T")
    file = _rollout_into(made, traj)
    refused(["train", "rl", "--config", "rl-tiny", "--envs", str(made["specs"]), "--out", str(traj / "rl")],
            f"--out {traj / 'rl'} is inside {traj}", str(file))
    assert not (traj / "rl").exists()


@pytest.mark.parametrize("command", ["eval", "train rl"])
def test_an_output_inside_a_mount_point_a_rollout_is_writing_now_is_refused(
        made: dict[str, Path], tmp_path: Path, mount: Mount, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """`rollout --out T` running with T mounted (T's lock held, its file not written yet), then an eval or RL run into
    T: on main neither looked at T's lock, the eval ran and wrote its runs into T."""
    _no_model(monkeypatch)
    traj = mount(tmp_path / "T")
    out = traj / ("eval" if command == "eval" else "rl")
    with FakeOpenAIServer() as server, folder_lock(traj):  # what `rollout --out T` holds from its checks to its write
        args = _eval(f"{server.url}/v1", made["specs"], out) if command == "eval" else \
            ["train", "rl", "--config", "rl-tiny", "--envs", str(made["specs"]), "--out", str(out)]
        refused(args, f"--out {out} is inside {traj}", "another command is writing now", "beside")
        assert server.stats()["requests"] == 0
    assert not out.exists()


def test_a_stray_episode_file_at_the_top_of_a_mounted_disk_refuses_an_eval_below_it_naming_the_mount_point(
        made: dict[str, Path], tmp_path: Path, mount: Mount) -> None:
    """Changed on purpose: a file at the top of a mount point reads as that folder's output (a mounted rollout folder
    looks just so). On main: taken, the eval wrote below it."""
    disk = mount(tmp_path / "disk")
    stray = write_trajectories(read_trajectories(made["traj"]), disk, written_by="rollout")
    out = disk / "evals" / "model-a"
    with FakeOpenAIServer() as server:
        refused(_eval(f"{server.url}/v1", made["specs"], out), f"--out {out} is inside {disk}", str(stray),
                f"{disk} is a mount point", f"move {stray} into a folder of its own")
        assert server.stats()["requests"] == 0


@pytest.mark.parametrize("above", ["a rollout folder above the mount point", "a home folder that is a mount point"])
def test_guard_a_folder_above_a_mount_point_or_a_mounted_home_says_nothing_about_an_eval_below(
        made: dict[str, Path], tmp_path: Path, mount: Mount, monkeypatch: pytest.MonkeyPatch, above: str) -> None:
    """Regression guard (held on main): the walk stops above a mount point, and at the home folder, mounted or not."""
    if above == "a home folder that is a mount point":
        disk = mount(tmp_path / "home")
        monkeypatch.setenv("HOME", str(disk))
        _rollout_into(made, disk)
    else:
        holder = Path(shutil.copytree(made["traj"], tmp_path / "P"))
        disk = mount(holder / "disk")
    out = disk / "evals" / "model-a"
    with FakeOpenAIServer() as server:
        succeeded(_eval(f"{server.url}/v1", made["specs"], out))
    assert len(list((out / "runs").glob("*.parquet"))) == 1
