"""Fault corpus, disk: every writer hits a full disk (a file size limit in a child process: writes fail with EFBIG
as they fail with ENOSPC on a full disk). The command fails with one `error:` line naming the file and what to do,
the previous output is intact byte for byte, no temp file stays, and the same command succeeds once there is room."""

from __future__ import annotations

from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher
from tests.faults.harness import (
    CAPABILITY,
    assert_clean_failure,
    release,
    run_child,
    snapshot,
    spec_folder,
    temp_files,
)

SMALL = 1024  # bytes: less than any output of these commands
DISK_ADVICE = "free disk space"


def _fills_up(args: list[str], out: Path, file_name: str) -> None:
    """Run once with room, then again with a full disk: the second run fails cleanly and changes nothing."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    first = CliRunner().invoke(app, args)  # with room: no fault armed, so in this process
    assert first.exit_code == 0, first.output
    before = snapshot(out)
    assert before
    failed = run_child(args, fsize=SMALL, preloaded=True)
    assert_clean_failure(failed, str(out), file_name, DISK_ADVICE, code=1)
    assert snapshot(out) == before
    assert temp_files(out) == []


def test_synth_on_a_full_disk_keeps_the_previous_specs(tmp_path: Path) -> None:
    out = tmp_path / "specs"
    # A new seed: the second run would write other bytes under the same name.
    _fills_up(["synth", "--out", str(out), "-c", CAPABILITY, "--n", "2"], out, f"specs-{CAPABILITY}.parquet")


def test_rollout_on_a_full_disk_writes_no_trajectories(tmp_path: Path) -> None:
    out = tmp_path / "traj"
    failed = run_child(["rollout", str(spec_folder(tmp_path / "in")), "--out", str(out)], fsize=SMALL, preloaded=True)
    assert_clean_failure(failed, str(out / "trajectories-"), DISK_ADVICE, code=1)
    assert snapshot(out) == {}
    assert temp_files(out) == []


def test_curate_on_a_full_disk_keeps_the_previous_shards_and_report(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from coworkenv.cli import app

    traj = tmp_path / "traj"
    assert CliRunner().invoke(app, ["rollout", str(spec_folder(tmp_path / "in")), "--out", str(traj)]).exit_code == 0
    out = tmp_path / "sft"
    _fills_up(["curate", str(traj), "--out", str(out)], out, "train-00000-of-00001.parquet")


def test_validate_on_a_full_disk_keeps_the_previous_results(tmp_path: Path) -> None:
    out = tmp_path / "validated"
    _fills_up(["validate", str(spec_folder(tmp_path / "in")), "--out", str(out)], out, "accepted.parquet")


def test_store_write_on_a_full_disk_keeps_latest(tmp_path: Path) -> None:
    root = tmp_path / "store"
    assert run_child([str(root), "small"], call="tests.faults.scenarios:store_write", preloaded=True).returncode == 0
    before = snapshot(root)
    failed = run_child([str(root), "large"], call="tests.faults.scenarios:store_write", fsize=4096, preloaded=True)
    assert failed.returncode != 0
    last = failed.stderr.strip().splitlines()[-1]
    assert "WriteError: cannot write" in last and str(root / "table") in last and DISK_ADVICE in last, last
    assert snapshot(root) == before
    assert temp_files(root) == []


def test_a_publish_on_a_full_disk_leaves_the_last_version_in_the_folder(tmp_path: Path) -> None:
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    before = snapshot(repo)
    # The disk fills up while the third file is copied into the repository: two are new, stale ones are gone.
    failed = run_child([str(repo), "v2"], call="tests.faults.harness:publish_release",
                       fail=("coworkenv.store._local_git:atomic_copy:3:ENOSPC",), preloaded=True)
    assert failed.returncode != 0
    last = failed.stderr.strip().splitlines()[-1]
    assert "No space left on device" in last, last
    assert snapshot(repo) == before  # the folder readers load still holds v1, whole
    assert publisher.published_versions() == ["v1"]
    publisher.publish(release("v2"))  # with room again, the same publish goes through
    fresh = tmp_path / "fresh"
    LocalGitPublisher(fresh).publish(release("v2"))
    assert snapshot(repo) == snapshot(fresh)
    assert publisher.published_versions() == ["v1", "v2"]


@pytest.mark.parametrize("command", ["synth", "rollout", "curate"])
def test_a_file_where_the_out_folder_should_be_is_named(tmp_path: Path, command: str) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("not a folder")
    out = blocker / "sub"
    args = {"synth": ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "1"],
            "rollout": ["rollout", str(spec_folder(tmp_path / "in")), "--out", str(out)],
            "curate": ["curate", str(tmp_path), "--out", str(out)]}[command]
    assert_clean_failure(run_child(args, preloaded=True), str(blocker), "is a file", code=2)
    assert blocker.read_text() == "not a folder"


def test_writers_racing_on_one_dataset_leave_whole_files_and_a_valid_pointer(tmp_path: Path) -> None:
    import subprocess
    import sys

    from coworkenv.store import latest, read_table
    from tests.faults.harness import ROOT, assert_whole_parquet

    root = tmp_path / "store"
    code = ("import sys; from tests.faults.scenarios import store_write\n"
            "for _ in range(8): store_write(sys.argv[1], sys.argv[2])")
    children = [subprocess.Popen([sys.executable, "-c", code, str(root), size], cwd=ROOT, stderr=subprocess.PIPE,
                                 text=True) for size in ("small", "large", "small", "large")]
    for child in children:
        _, err = child.communicate(timeout=600)
        assert child.returncode == 0, err
    stored = latest(root, "table")
    assert stored is not None and read_table(stored).num_rows in (10, 5000)
    assert len(list((root / "table").glob("*.parquet"))) == 2  # one file per content, each whole
    assert_whole_parquet(root)
    assert temp_files(root) == []


@pytest.mark.parametrize("where", ["the repository", "a folder above it"])
def test_a_file_where_the_publish_repository_should_be_is_named(tmp_path: Path, where: str) -> None:
    from coworkenv.store import PublishError

    blocker = tmp_path / "hub"
    blocker.write_text("not a folder")
    repo = blocker if where == "the repository" else blocker / "datasets"
    with pytest.raises(PublishError, match="a file stands in the way") as caught:
        LocalGitPublisher(repo).publish(release("v1"))
    assert str(repo) in str(caught.value)
    assert blocker.read_text() == "not a folder"


def test_a_damaged_repository_is_named_and_its_folder_left_alone(tmp_path: Path) -> None:
    from coworkenv.store import PublishError

    repo = tmp_path / "hub"
    LocalGitPublisher(repo).publish(release("v1"))
    before = snapshot(repo)
    (repo / ".git" / "HEAD").write_text("garbage\n")
    with pytest.raises(PublishError, match=r"is damaged.*nothing was published.*aside") as caught:
        LocalGitPublisher(repo).publish(release("v2"))
    assert str(repo) in str(caught.value)
    assert snapshot(repo) == before
