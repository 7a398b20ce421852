"""Fault corpus, file systems that refuse in their own ways: a rename across file systems or onto a mount point
(EXDEV, EBUSY: an output folder that is a container volume, or a folder of an image layer overlayfs cannot
rename), a file system out of inodes (ENOSPC with gigabytes free), a process out of file descriptors (EMFILE), and
a credential that cannot be sent. Each is one line saying what to do about that cause (they had all been "check
the disk and the folder, then run again", or a traceback); the earlier output and a trained checkpoint are kept."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names, load_example
from coworkenv.store import LocalGitPublisher
from coworkenv.store.stages import write_specs
from coworkenv.validate import procedural_candidates
from tests.faults.harness import assert_clean_failure, release, run_child, snapshot, spec_folder, temp_files
from tests.support.pipeline_child import make_workspace
from trainers.checkpoint_files import CheckpointPlaceError, replace_dir

# Where each errno strikes an atomic write, and what the line must tell the user to do.
CASES = {
    "EXDEV": ("os:replace", "a mount point"),
    "EBUSY": ("os:replace", "a mount point"),
    # The temp file cannot even be created: no inode left, no descriptor left (made as `open()` makes a file).
    "ENOSPC": ("coworkenv.atomic:_open_temp", "df -i"),
    "EMFILE": ("coworkenv.atomic:_open_temp", "ulimit -n"),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_an_atomic_write_refused_for_that_cause_says_what_to_do_and_keeps_the_earlier_output(
        tmp_path: Path, code: str) -> None:
    specs = spec_folder(tmp_path / "specs")
    out = tmp_path / "out"
    assert run_child(["rollout", str(specs), "--out", str(out)], preloaded=True).returncode == 0
    before = snapshot(out)
    target, advice = CASES[code]
    failed = run_child(["rollout", str(specs), "--out", str(out)], fail=(f"{target}:1:{code}",), preloaded=True)
    assert_clean_failure(failed, str(out), os.strerror(getattr(errno, code)), advice, code=1)
    assert snapshot(out) == before and temp_files(out) == []


@pytest.mark.parametrize("code", ["EXDEV", "EBUSY"])
def test_a_checkpoint_that_cannot_be_renamed_into_place_is_kept_whole_and_its_place_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    # What overlayfs answers when the old checkpoint folder comes from a container image's lower layer (EXDEV), or
    # a bind mount answers for the folder itself (EBUSY): it had been a bare OSError, and the next training run
    # deleted the new checkpoint's staging folder, hours of training with it.
    out, staging = tmp_path / "sft", tmp_path / ".sft.partial"
    for folder, marker in ((out, "old"), (staging, "new")):
        folder.mkdir()
        (folder / "config.json").write_text(marker)
    real = os.replace

    def refused(source: Path, target: Path) -> None:
        if Path(source) in (out, staging):
            raise OSError(getattr(errno, code), os.strerror(getattr(errno, code)), str(source), None, str(target))
        real(source, target)

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(CheckpointPlaceError) as caught:
        replace_dir(staging, out)
    message = str(caught.value)
    assert str(out) in message and f"whole in {staging}" in message and "a mount point" in message, message
    assert (out / "config.json").read_text() == "old" and (staging / "config.json").read_text() == "new"


def test_an_api_key_with_a_line_break_is_named_by_its_variable_never_shown(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # A key copied with its newline: the HTTP client refused the header deep inside a request, with a traceback.
    specs = tmp_path / "specs.parquet"
    write_specs(procedural_candidates([load_example(example_names()[0])]), specs)
    monkeypatch.setenv("COWORKENV_LLM_API_KEY", "sk-fault-corpus-secret\n")
    result = CliRunner().invoke(app, ["rollout", str(specs), "--out", str(tmp_path / "out"),
                                      "--llm", "http://127.0.0.1:9/v1", "--model", "m"])
    assert result.exit_code == 2, result.output
    assert "COWORKENV_LLM_API_KEY" in result.output and "control character" in result.output, result.output
    assert "sk-fault-corpus-secret" not in result.output and not (tmp_path / "out").exists()


def test_a_folder_on_a_file_system_without_locks_is_named_by_every_writer_that_locks(tmp_path: Path) -> None:
    # NFS without its lock service answers flock with ENOLCK: `python -m pipelines.run` ended in a traceback, and
    # curate said "No locks available (OSError)" without a folder.
    lock = ("fcntl:flock:1:ENOLCK",)
    specs = spec_folder(tmp_path / "specs")
    assert run_child(["rollout", str(specs), "--out", str(tmp_path / "traj")], preloaded=True).returncode == 0
    curate = run_child(["curate", str(tmp_path / "traj"), "--out", str(tmp_path / "sft")], fail=lock, preloaded=True)
    assert_clean_failure(curate, f"cannot lock {tmp_path / 'sft'}", "No locks available", "local disk", code=1)
    assert snapshot(tmp_path / "sft") == {}
    ws = make_workspace(tmp_path / "ws", ("report_from_data",))
    run = run_child(["--no-train"], call="tests.faults.scenarios:pipeline_run", env=ws.env(), fail=lock, preloaded=True)
    assert_clean_failure(run, f"cannot lock {ws.home}", "No locks available", "local disk", code=1)
    assert snapshot(ws.data) == {}


def test_a_publish_into_a_folder_without_locks_is_refused_before_it_writes(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(OSError) as caught:
        LocalGitPublisher(tmp_path / "hub").publish(release("v1"))
    assert f"cannot lock {tmp_path / 'hub'}" in str(caught.value) and "local disk" in str(caught.value)
    assert snapshot(tmp_path / "hub") == {} and not (tmp_path / "hub" / ".git").exists()


def test_llm_requests_in_flight_past_a_low_open_files_limit_are_blamed_on_this_side_not_the_server(
        tmp_path: Path) -> None:
    # Under `ulimit -n 12` (hard 4096) these 20 episodes took 36 retries, "connection failed ... [Too many open
    # files]"; with 8 envs, 26 of 32 episodes failed, "check the server". The soft limit is raised at start now;
    # when no descriptor is left all the same, the error says it is this side's.
    from tests.support.fake_openai_server import FakeOpenAIServer

    specs = tmp_path / "specs.parquet"
    write_specs(procedural_candidates([load_example(name) for name in example_names()]), specs)
    with FakeOpenAIServer(delay_s=0.3) as server:
        raised = run_child(["rollout", str(specs), "--out", str(tmp_path / "out"), "--llm", f"{server.url}/v1",
                            "--model", "m", "--k", "4", "--max-steps", "2"], nofile="12:4096")
        assert raised.returncode == 0 and " 0 retries" in raised.stdout, raised.stdout + raised.stderr
        exhausted = run_child([f"{server.url}/v1"], call="tests.faults.scenarios:llm_request_without_descriptors",
                              nofile="64")
    assert "[Too many open files]" in exhausted.stdout, exhausted.stdout + exhausted.stderr
    assert "on this side: no file descriptor left (`ulimit -n` is 64)" in exhausted.stdout, exhausted.stdout
    assert "check the server" not in exhausted.stdout, exhausted.stdout  # this side ran out, not the server
