"""Fault corpus, files that refuse writes to root too: an immutable attribute (`chattr +i`) on an output folder, on an
output file, on the local dataset repository's `.git` or on a folder of its version. Permission bits do not bind
root (this corpus runs as root in containers), so `chmod` cases cannot reach these paths. Each write fails with one
line (or PublishError) naming the file, saying that the attribute binds root too and how to remove it; the previous
output and the last version stay whole. Before, a publish raised a bare PermissionError, and the advice was "make
the folder writable", which a folder that is writable already cannot follow."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import assert_clean_failure, release, run_child, snapshot, temp_files

ADVICE = "chattr -i"


def _can_make_immutable() -> bool:
    # A name of its own: test processes collecting this file at once (pytest-xdist) must not share the probe.
    try:
        fd, name = tempfile.mkstemp(prefix=".immutable-probe-", dir=Path(__file__).parent)
    except OSError:
        return False
    os.close(fd)
    probe = Path(name)
    try:
        made = shutil.which("chattr") is not None and subprocess.run(
            ["chattr", "+i", str(probe)], capture_output=True, check=False).returncode == 0
        if made:
            subprocess.run(["chattr", "-i", str(probe)], check=True)
        return made
    except OSError:
        return False
    finally:
        probe.unlink(missing_ok=True)


pytestmark = pytest.mark.skipif(not _can_make_immutable(),
                                reason="needs chattr and the right to set an immutable attribute (root, ext4/xfs)")


@contextmanager
def immutable(path: Path) -> Iterator[None]:
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)  # else pytest cannot remove tmp_path


def _synth(out: Path) -> list[str]:
    return ["synth", "--out", str(out), "-c", "ticket_triage_update", "--n", "1"]


@pytest.mark.parametrize("frozen", ["the folder", "the file"])
def test_a_command_writing_over_an_immutable_output_names_it_and_keeps_it(tmp_path: Path, frozen: str) -> None:
    from typer.testing import CliRunner

    from coworkenv.cli import app

    out = tmp_path / "out"
    assert CliRunner().invoke(app, _synth(out)).exit_code == 0  # nothing armed: in this process
    before = snapshot(out)
    (written,) = [out / name for name in before]
    with immutable(out if frozen == "the folder" else written):
        failed = run_child([*_synth(out), "--seed", "5"], preloaded=True)  # other specs: the file must be replaced
    line = assert_clean_failure(failed, str(written), ADVICE, code=1)
    assert str(out if frozen == "the folder" else written) in line.split(";", 1)[1], line
    assert snapshot(out) == before and temp_files(out) == []


def test_a_publish_into_a_repository_whose_git_dir_is_immutable_is_refused_whole(tmp_path: Path) -> None:
    repo = tmp_path / "dataset"
    LocalGitPublisher(repo).publish(release("v1"))
    before = snapshot(repo)
    with immutable(repo / ".git"), pytest.raises(PublishError) as caught:
        LocalGitPublisher(repo).publish(release("v2"))
    message = str(caught.value)
    assert str(repo / ".git") in message and ADVICE in message, message
    assert snapshot(repo) == before and LocalGitPublisher(repo).published_versions() == ["v1"]


def test_a_publish_that_cannot_remove_a_stale_file_leaves_the_last_version(tmp_path: Path) -> None:
    repo = tmp_path / "dataset"
    LocalGitPublisher(repo).publish(release("v1", rows=40))  # four shards
    before = snapshot(repo)
    with immutable(repo / "data" / "sft"), pytest.raises(PublishError) as caught:
        LocalGitPublisher(repo).publish(release("v2", rows=10))  # one shard: three to delete
    message = str(caught.value)
    assert str(repo / "data" / "sft") in message and ADVICE in message and "v2" in message, message
    assert snapshot(repo) == before
    LocalGitPublisher(repo).publish(release("v2", rows=10))  # once the attribute is gone
    assert LocalGitPublisher(repo).published_versions() == ["v1", "v2"]
