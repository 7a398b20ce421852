"""Fault corpus, interruptions: kill -9 and SIGTERM at fixed points of `synth`, `rollout`, `curate` and a publish,
and two publishes at once. After a kill, no half-written file sits under a final name, readers refuse an incomplete
result instead of reading part of it, and running the same command again gives what an uninterrupted run gives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from coworkenv.cli import TERMINATED
from coworkenv.store import LocalGitPublisher
from coworkenv.store.stages import read_sft, read_trajectories, sft_files, without_measurements
from tests.faults.harness import (
    CAPABILITY,
    ROOT,
    SECOND_CAPABILITY,
    assert_whole_parquet,
    release,
    run_child,
    snapshot,
    spec_folder,
    temp_files,
)

SIGKILLED = -9
STAGE = "coworkenv.store.stages._stage"
SFT = "coworkenv.store.stages.sft"


def _in_process(args: list[str]) -> bool:
    """Run `coworkenv ARGS` with no fault armed in this process (no interpreter start-up); whether it succeeded."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return True


def _resumes_like_an_uninterrupted_run(args: list[str], out: Path, kill: str, tmp_path: Path) -> Path:
    """Kill, check nothing half-written shows, run again; return the folder of an uninterrupted run to compare."""
    killed = run_child(args, kill=(kill,), preloaded=True)
    assert killed.returncode == SIGKILLED, killed.stderr
    assert_whole_parquet(out)
    assert _in_process(args)  # the rerun and the reference need no fault armed
    assert temp_files(out) == []  # the killed writer's temp file is swept by the next write
    reference = tmp_path / "reference"
    assert _in_process([str(reference) if a == str(out) else a for a in args])
    return reference


@pytest.mark.parametrize(("label", "kill"), [
    ("after the first file, before the second is renamed", "coworkenv.atomic:commit_file:2:before"),
    ("while the first file is serialized", f"{STAGE}:write_parquet:1:after"),
])
def test_synth_killed_then_run_again_gives_the_same_files(tmp_path: Path, label: str, kill: str) -> None:
    out = tmp_path / "specs"
    args = ["synth", "--out", str(out), "-c", CAPABILITY, "-c", SECOND_CAPABILITY, "--n", "2"]
    reference = _resumes_like_an_uninterrupted_run(args, out, kill, tmp_path)
    assert snapshot(out) == snapshot(reference)  # byte for byte


def test_rollout_killed_before_its_rename_then_run_again(tmp_path: Path) -> None:
    out = tmp_path / "traj"
    args = ["rollout", str(spec_folder(tmp_path / "in")), "--out", str(out)]
    reference = _resumes_like_an_uninterrupted_run(args, out, "coworkenv.atomic:commit_file:1:before", tmp_path)
    (written,), (expected,) = list(out.glob("*.parquet")), list(reference.glob("*.parquet"))
    assert written.name == expected.name
    # Timings differ from run to run; everything else is the same.
    assert [without_measurements(r) for r in read_trajectories(written)] == \
        [without_measurements(r) for r in read_trajectories(expected)]


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Trajectories of two specs (k=3), made once for the module in this process (the tests only read them)."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    root = tmp_path_factory.mktemp("trajectories")
    traj = root / "traj"
    done = CliRunner().invoke(app, ["rollout", str(spec_folder(root / "in")), "--out", str(traj), "--k", "3"])
    assert done.exit_code == 0, done.output
    return traj


def _train_rows(trajectories: Path, tmp_path: Path) -> int:
    """The train rows an uninterrupted curate keeps from `trajectories` (the count follows the generators)."""
    reference = tmp_path / "uninterrupted"
    assert _in_process(["curate", str(trajectories), "--out", str(reference)])
    rows = read_sft(sft_files(reference)).num_rows
    assert rows >= 2, "the kill points need at least two shards of one row"
    return rows


def test_curate_killed_between_shards_is_completed_by_its_readers(tmp_path: Path, trajectories: Path) -> None:
    """Since faults27 the renames of a set follow a journal: the reader completes them (before, it refused the part
    set by the shards' names, and a rerun completed it)."""
    rows = _train_rows(trajectories, tmp_path)
    out = tmp_path / "sft"
    args = ["curate", str(trajectories), "--out", str(out), "--max-rows-per-shard", "1"]
    # Shards are put in place once all are written (`files_together`): killed after the first of those renames.
    killed = run_child(args, kill=("coworkenv.atomic:_place:1:after",), preloaded=True)
    assert killed.returncode == SIGKILLED, killed.stderr
    assert [p.name for p in out.glob("train-*")] == [f"train-00000-of-{rows:05d}.parquet"]
    assert read_sft(sft_files(out)).num_rows == rows  # a trainer takes the whole data, never a part of it
    assert temp_files(out) == []
    assert _in_process(args)
    assert read_sft(sft_files(out)).num_rows == rows


def test_curate_killed_before_dropping_an_earlier_runs_shards_is_completed(tmp_path: Path, trajectories: Path) -> None:
    """Since faults27 the reader completes the killed set, removals included (before, it refused the two writes by
    their marks, and a rerun completed it)."""
    rows = _train_rows(trajectories, tmp_path)
    shards = -(-rows // 4)
    assert rows > shards, "the rerun must write fewer shards than the first run for the two writes to differ"
    out = tmp_path / "sft"
    assert _in_process(["curate", str(trajectories), "--out", str(out), "--max-rows-per-shard", "1"])
    # A rerun with larger shards is killed after putting its shards in place, before removing the earlier run's ones.
    args = ["curate", str(trajectories), "--out", str(out), "--max-rows-per-shard", "4"]
    killed = run_child(args, kill=(f"coworkenv.atomic:_place:{shards}:after",), preloaded=True)
    assert killed.returncode == SIGKILLED, killed.stderr
    assert read_sft(sft_files(out)).num_rows == rows  # the earlier run's shards are dropped, as the killed run would
    assert sorted(p.name for p in out.glob("train-*")) == [f"train-{i:05d}-of-{shards:05d}.parquet"
                                                           for i in range(shards)]
    assert _in_process(args)
    assert sorted(p.name for p in out.glob("train-*")) == [f"train-{i:05d}-of-{shards:05d}.parquet"
                                                           for i in range(shards)]
    assert read_sft(sft_files(out)).num_rows == rows


@pytest.mark.parametrize("command", ["synth", "rollout", "curate", "validate"])
def test_sigterm_while_writing_exits_143_and_leaves_no_temp_file(tmp_path: Path, command: str,
                                                                   trajectories: Path) -> None:
    out, specs = tmp_path / "out", trajectories.parent / "in"
    args, target = {
        "synth": (["synth", "--out", str(out), "-c", CAPABILITY, "--n", "1"], f"{STAGE}:write_parquet:1:after"),
        "rollout": (["rollout", str(specs), "--out", str(out)], f"{STAGE}:write_parquet:1:after"),
        "curate": (["curate", str(trajectories), "--out", str(out)], f"{SFT}:ShardWriter._write_pending:1:after"),
        "validate": (["validate", str(specs), "--out", str(out)], f"{STAGE}:write_parquet:1:after"),
    }[command]
    stopped = run_child(args, kill=(f"{target}:SIGTERM",), preloaded=True)
    assert stopped.returncode == TERMINATED, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert temp_files(out) == [] and not list(out.glob("*.parquet"))


def test_a_publish_killed_mid_copy_is_completed_by_the_next_publish(tmp_path: Path) -> None:
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    v1 = snapshot(repo)
    killed = run_child([str(repo), "v2"], call="tests.faults.harness:publish_release",
                       kill=("coworkenv.store._local_git:atomic_copy:3:after",), preloaded=True)
    assert killed.returncode == SIGKILLED
    # Publishing v1 again must give v1's folder back, not "nothing to do" over a half-written v2.
    publisher.publish(release("v1"))
    assert snapshot(repo) == v1
    publisher.publish(release("v2"))
    fresh = tmp_path / "fresh"
    LocalGitPublisher(fresh).publish(release("v2"))
    assert snapshot(repo) == snapshot(fresh) and temp_files(repo) == []
    assert publisher.published_versions() == ["v1", "v2"]


@pytest.mark.parametrize("lock", ["index.lock", "HEAD.lock", "refs/heads/main.lock"])
def test_git_lock_files_left_by_a_killed_publish_do_not_block_the_next(tmp_path: Path, lock: str) -> None:
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    killed = run_child([str(repo), "v2", lock], call="tests.faults.scenarios:publish_killed_holding_a_git_lock", preloaded=True)
    assert killed.returncode == SIGKILLED, killed.stderr
    assert (repo / ".git" / lock).is_file()  # git's lock, fresh, its writer gone
    publisher.publish(release("v2"))
    assert not (repo / ".git" / lock).exists()
    fresh = tmp_path / "fresh"
    LocalGitPublisher(fresh).publish(release("v2"))
    assert snapshot(repo) == snapshot(fresh)
    assert publisher.published_versions() == ["v1", "v2"]


@pytest.mark.parametrize("tags", [("v1", "v1"), ("v1", "v2")])
def test_two_processes_publishing_at_once_both_land_once(tmp_path: Path, tags: tuple[str, str]) -> None:
    repo = tmp_path / "hub"
    code = "import sys; from tests.faults.harness import publish_release; publish_release(sys.argv[1], sys.argv[2])"
    children = [subprocess.Popen([sys.executable, "-c", code, str(repo), tag], cwd=ROOT, stderr=subprocess.PIPE,
                                 text=True) for tag in tags]
    for child in children:
        _, err = child.communicate(timeout=600)
        assert child.returncode == 0, err
    publisher = LocalGitPublisher(repo)
    versions = publisher.published_versions()
    assert sorted(versions) == sorted(set(tags))
    fresh = tmp_path / "fresh"
    LocalGitPublisher(fresh).publish(release(versions[-1]))
    assert snapshot(repo) == snapshot(fresh)


def test_a_checkpoint_folder_with_an_interrupted_write_publishes_without_its_temp_file(tmp_path: Path) -> None:
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "qwen3"}')
    (folder / "model.safetensors").write_bytes(b"weights")
    (folder / ".tmp-abc-1-xyz.safetensors").write_bytes(b"half of the new weigh")  # a trainer killed mid-save
    result = LocalGitPublisher(tmp_path / "hub").publish_folder(folder, "ckpt-1", "# card\n")
    assert result.files == ["README.md", "config.json", "model.safetensors"]
    assert temp_files(tmp_path / "hub") == []
