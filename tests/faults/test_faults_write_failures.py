"""Fault corpus, writes that fail part way on a disk that is really full, or failing: a local publish that fills
the disk while it copies the new version's files or while `git add` / `git commit` write its objects; an EIO from
the flush of a folder after a file was put in place; an EIO from a rename in the middle of a set of files; an EIO
from the flush that makes a set's journal durable.

On `main`: the publish's restore asked git to write the last version's files back before the new version's files
were gone, on a disk with no room for them, so it failed and left the folder that readers load with the last
version's files deleted and part of the new one's (the error said "any earlier version of the file is unchanged");
git's own "No space left on device" was told "fix the repository state"; a failure after a rename said the file was
unchanged, of a file already replaced; a journal whose folder flush failed stayed behind a set that was never put
in place, and the next reader did its removals: the earlier curation's shards deleted without their replacements.

The full disk is a small tmpfs mounted in a user namespace (`unshare -Urm`): skipped where that is not allowed.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import CAPABILITY, ROOT, release, snapshot, temp_files
from tests.faults.test_faults_output_sets import _curate, _envs, made  # noqa: F401 (a fixture)

# Four runs on one tmpfs in a user namespace, each printing a line: a publish of many shards filling the disk part
# way, then a small one short of a page at its last writes, then of each page before; then a Hub publish (the
# in-memory stand-in of tests/test_store_hf_hub.py) whose temp folder, where it stages the release, is full; then a
# checkpoint folder published with no room beside it for the copy of its weights that the publish checks.
_FULL_DISK = r"""
import json, os, subprocess, sys
from pathlib import Path
from tests.faults.harness import release, snapshot
from coworkenv.store import LocalGitPublisher

mount = Path(sys.argv[1])
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], check=True)

def size(kib):
    subprocess.run(["mount", "-o", f"remount,size={kib}k", str(mount)], check=True)

def used():
    st = os.statvfs(mount)
    return (st.f_blocks - st.f_bfree) * st.f_frsize // 1024

first, second = release("v1", rows=40), release("v2", rows=120)  # 4 shards, then 12 others
repo, probe = mount / "repo", mount / "probe"
LocalGitPublisher(repo).publish(first)
before, base = snapshot(repo), used()
subprocess.run(["cp", "-a", str(repo), str(probe)], check=True)
start = used()
LocalGitPublisher(probe).publish(second)
need = used() - start  # what publishing the second version over the first takes: its files and git objects
subprocess.run(["rm", "-rf", str(probe)], check=True)
points = []
for share in (0.1, 0.6):  # full while the files are copied, then while git writes their objects
    size(base + int(need * share))
    try:
        LocalGitPublisher(repo).publish(second)
        outcome = "published"
    except Exception as exc:
        outcome = f"{type(exc).__name__}: {exc}"
    points.append({"share": share, "outcome": outcome, "same": snapshot(repo) == before, "left_kib": used() - base,
                   "versions": LocalGitPublisher(repo).published_versions()})
size(64 * 1024)
LocalGitPublisher(repo).publish(second)
print(json.dumps({"points": points, "versions": LocalGitPublisher(repo).published_versions()}))
subprocess.run(["rm", "-rf", str(repo)], check=True)

def refs(repo):
    return subprocess.run(["git", "-C", str(repo), "show-ref"], capture_output=True, text=True).stdout

first, second = release("v1", rows=10), release("v2", rows=10)
repo, probe = mount / "small", mount / "probe"
LocalGitPublisher(repo).publish(first)
subprocess.run(["cp", "-a", str(repo), str(probe)], check=True)
start = used()
LocalGitPublisher(probe).publish(second)
need = used() - start
subprocess.run(["rm", "-rf", str(probe)], check=True)
before, base, known = snapshot(repo), used(), refs(repo)
page = os.statvfs(mount).f_frsize // 1024
points = []
for short in range(1, 7):  # the disk fills at the last write of the publish, then at each one before it
    size(max(used() + page, base + need - page * short))
    try:
        LocalGitPublisher(repo).publish(second)
        outcome = "published"
    except Exception as exc:
        outcome = f"{type(exc).__name__}: {exc}"
    points.append({"short": short, "outcome": outcome, "same": snapshot(repo) == before, "refs": refs(repo) == known})
    size(64 * 1024)
    if outcome == "published":
        break
print(json.dumps({"points": points, "versions": LocalGitPublisher(repo).published_versions()}))

import tempfile
from typing import cast
from huggingface_hub import HfApi
from coworkenv.store import HfHubPublisher
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi

os.environ.update(HF_TOKEN=TOKEN, HF_HUB_OFFLINE="1")
tempfile.tempdir = str(mount / "tmp")  # the temp folder a publish stages the release in, on the small disk
os.mkdir(tempfile.tempdir)
api = RecordingHubApi()
HfHubPublisher(REPO, api=cast(HfApi, api)).publish(release("v1", rows=10))
size(used() + 4 * page)
try:
    HfHubPublisher(REPO, api=cast(HfApi, api)).publish(release("v2", rows=120))
    outcome = "published"
except Exception as exc:
    outcome = f"{type(exc).__name__}: {exc}"
print(json.dumps({"outcome": outcome, "tags": sorted(api.tags), "left": os.listdir(tempfile.tempdir)}))

size(64 * 1024)
ckpt, into = mount / "ckpt", mount / "models"
ckpt.mkdir()
(ckpt / "config.json").write_text("{}")
LocalGitPublisher(into).publish_folder(ckpt, "c1", "# a checkpoint")
(ckpt / "model.safetensors").write_bytes(os.urandom(256 * 1024))
before = snapshot(into)
size(used() + 16 * page)  # room for part of the copy a publish checks the weights in
try:
    LocalGitPublisher(into).publish_folder(ckpt, "c2", "# a checkpoint")
    outcome = "published"
except Exception as exc:
    outcome = f"{type(exc).__name__}: {exc}"
print(json.dumps({"outcome": outcome, "versions": LocalGitPublisher(into).published_versions(),
                  "same": snapshot(into) == before, "left": sorted(os.listdir(mount))}))
"""


def _namespaces_allowed() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt 2>/dev/null || "
                            "mount -t tmpfs -o size=1m tmpfs /tmp"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.fixture(scope="module")
def full_disks(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The four runs of `_FULL_DISK` (one child, one tmpfs), as each printed them."""
    if not _namespaces_allowed():
        pytest.skip("no user namespace with a tmpfs mount here")
    mount = tmp_path_factory.mktemp("disk")
    done = subprocess.run(["unshare", "-Urm", sys.executable, "-c", _FULL_DISK, str(mount)], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.strip().splitlines()[-4:]]


def test_a_publish_filling_a_real_disk_keeps_the_last_version_in_the_folder(full_disks: list[dict[str, Any]]) -> None:
    """A local publish of 12 new shards over a version of 4, on a tmpfs with room for 10% and 60% of it: the disk
    fills while the shards are copied, then while git writes their objects. On main both left the folder with the
    4 shards of v1 deleted and some of v2's, the restore having failed for want of room."""
    found = full_disks[0]
    for point in found["points"]:
        assert point["outcome"] != "published", point
        assert "No space left on device" in point["outcome"] and "free disk space" in point["outcome"], point
        assert "fix the repository state" not in point["outcome"], point
        assert point["same"] and point["versions"] == ["v1"], point
        # What the failed publish wrote is gone (git's objects of it too), or each retry would have less room.
        assert point["left_kib"] <= 16, point
    assert found["versions"] == ["v1", "v2"], found  # with room again, the same publish goes through




def test_a_publish_whose_last_writes_meet_a_full_disk_is_published_whole_or_not_at_all(
        full_disks: list[dict[str, Any]]) -> None:
    """A local publish on a tmpfs short of its last page, then of each page before: the tag, the commit, the tree.
    On main, one page short, the commit landed and its tag did not: the branch and the folder held v2 untagged (no
    published version, yet what readers of the folder loaded), the error said "fix the repository state", and the
    restore failed for want of room. Now the branch and the tag move in one git transaction: both or neither."""
    found = full_disks[1]
    assert len(found["points"]) >= 3, found
    for point in found["points"]:
        assert point["outcome"] != "published", point
        assert "No space left on device" in point["outcome"] and "free disk space" in point["outcome"], point
        assert "fix the repository state" not in point["outcome"], point
        assert "nothing was published" in point["outcome"], point
        assert point["same"] and point["refs"], point  # no commit without its tag, no file of v2 in the folder
    assert found["versions"] == ["v1"], found


def test_a_release_that_cannot_be_staged_in_a_full_temp_folder_says_so_and_publishes_nothing(
        full_disks: list[dict[str, Any]]) -> None:
    """A Hub publish whose temp folder (TMPDIR) is full while it stages the release's shards. On main: the write's own
    WriteError, not a PublishError, naming a file of the staging folder its removal had deleted and saying "any
    earlier version of the file is unchanged"; nothing said of the temp folder, of TMPDIR, or that nothing was
    published."""
    found = full_disks[2]
    said = found["outcome"]
    assert said.startswith("PublishError: cannot stage version v2 for publishing in "), found
    assert "No space left on device" in said and "TMPDIR" in said and "nothing was published" in said, found
    assert "earlier version of the file is unchanged" not in said, found
    assert found["tags"] == ["v1"] and found["left"] == [], found


def test_a_checkpoint_without_room_beside_it_for_its_checked_copy_says_how_much_it_needs(
        full_disks: list[dict[str, Any]]) -> None:
    """`publish_folder` copies the checkpoint's files beside it and checks the copies before publishing them. On main,
    with no room for the copy of its weights: "cannot publish c2 into REPO: <a file of the staging folder, already
    removed>: No space left on device; ...", saying neither that the copy beside the checkpoint needs the room nor
    how much."""
    found = full_disks[3]
    said = found["outcome"]
    assert said.startswith("PublishError: cannot publish ") and "are copied into" in said, found
    assert "needs about 0.3 MiB" in said and "No space left on device" in said, found
    assert "nothing was published" in said, found
    assert found["versions"] == ["c1"] and found["same"], found
    assert not [name for name in found["left"] if name.startswith(".coworkenv-publish-")], found


def _git_fails(failing: str, stderr: str, also: str | None = None) -> Callable[..., Any]:
    """A `LocalGitPublisher._run` under which `git FAILING` (and `git ALSO`) end with exit 128 and `stderr`."""
    real = LocalGitPublisher._run

    def run(self: LocalGitPublisher, *args: str, locate: bool = True,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        if args[0] in (failing, also):
            return subprocess.CompletedProcess(["git", *args], 128, "", stderr)
        return real(self, *args, locate=locate, input=input)

    return run


def test_a_failed_publish_makes_room_before_it_writes_the_last_version_back(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The same full disk, modelled here (for machines without user namespaces): `git add` finds no room, and git can
    write the last version's files back only once the new version's files are gone. On main the restore asked git
    first, and the folder was left with v1's shards deleted and v2's beside its card."""
    repo = tmp_path / "hub"
    LocalGitPublisher(repo).publish(release("v1", rows=40))
    before = snapshot(repo)
    real = LocalGitPublisher._run

    def run(self: LocalGitPublisher, *args: str, locate: bool = True,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        # No room for git to write a file back while a file of the failed publish (new or changed) is still there.
        full = args[0] == "add" or (args[0] == "read-tree" and "-u" in args and snapshot(repo).items() - before.items())
        if full:
            return subprocess.CompletedProcess(["git", *args], 128, "", "fatal: No space left on device")
        return real(self, *args, locate=locate, input=input)

    monkeypatch.setattr(LocalGitPublisher, "_run", run)
    with pytest.raises(PublishError) as caught:
        LocalGitPublisher(repo).publish(release("v2", rows=40))  # the same 4 names, other bytes
    assert snapshot(repo) == before and temp_files(repo) == []
    assert "free disk space" in str(caught.value) and "failed too" not in str(caught.value), caught.value
    monkeypatch.undo()
    assert LocalGitPublisher(repo).published_versions() == ["v1"]


def test_git_refused_by_a_full_disk_is_told_to_free_space_not_to_fix_the_repository(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "hub"
    LocalGitPublisher(repo).publish(release("v1"))
    before = snapshot(repo)
    monkeypatch.setattr(LocalGitPublisher, "_run",
                        _git_fails("add", "fatal: unable to write loose object file: No space left on device"))
    with pytest.raises(PublishError) as caught:
        LocalGitPublisher(repo).publish(release("v2"))
    message = str(caught.value)
    assert "free disk space" in message, message
    assert "fix the repository state" not in message, message
    monkeypatch.undo()
    assert snapshot(repo) == before and LocalGitPublisher(repo).published_versions() == ["v1"]


def test_a_restore_that_fails_too_is_said_not_hidden_behind_unchanged(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy of the new version's files fails, and so does putting the folder back: the error says the folder
    may hold both versions and how to end that, not that the earlier version is unchanged."""
    repo = tmp_path / "hub"
    LocalGitPublisher(repo).publish(release("v1"))
    monkeypatch.setattr(LocalGitPublisher, "_run", _git_fails("add", "fatal: Out of diskspace", also="read-tree"))
    with pytest.raises(PublishError) as caught:
        LocalGitPublisher(repo).publish(release("v2"))
    message = str(caught.value)
    assert "failed too" in message and f"git -C {repo} reset --hard" in message, message
    assert "keeps its last version" not in message and "unchanged" not in message, message
    monkeypatch.undo()
    LocalGitPublisher(repo).publish(release("v2"))  # with the disk sound again, the publish completes
    assert LocalGitPublisher(repo).published_versions() == ["v1", "v2"]


@contextmanager
def _failing(target: str, code: int, nth: int, *, kind: Callable[[Any], bool]) -> Iterator[list[int]]:
    """`os.TARGET` raises OSError(code) at its `nth` call whose first argument passes `kind`."""
    real, calls = getattr(os, target), [0]

    def call(first: Any, *rest: Any, **options: Any) -> Any:
        if kind(first):
            calls[0] += 1
            if calls[0] == nth:
                raise OSError(code, os.strerror(code))
        return real(first, *rest, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, target, call)
        yield calls
    assert calls[0] >= nth, f"{target} was called {calls[0]} times"


def _a_folder(fd: Any) -> bool:
    return isinstance(fd, int) and stat.S_ISDIR(os.fstat(fd).st_mode)


def _one_error(output: str) -> str:
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, output
    return errors[0]


def test_a_folder_flush_failing_after_the_rename_says_the_new_file_is_in_place(tmp_path: Path) -> None:
    """`synth` again: its file is renamed in place, then the fsync of its folder fails (EIO). On main the line
    said "any earlier version of the file is unchanged" of a file already replaced."""
    out = tmp_path / "specs"
    args = ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "2"]
    assert CliRunner().invoke(app, args).exit_code == 0
    before = snapshot(out)
    with _failing("fsync", errno.EIO, 1, kind=_a_folder):
        failed = CliRunner().invoke(app, [*args[:-1], "3"])
    assert failed.exit_code == 1, failed.output
    line = _one_error(failed.output)
    assert snapshot(out) != before  # the rename was done: the new file is what readers see
    assert "unchanged" not in line and "in place" in line and "dmesg" in line, line
    assert temp_files(out) == []


def test_a_journal_whose_flush_failed_never_has_a_reader_delete_the_earlier_shards(
        made: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811
    """A curate rerun of fewer shards (2 for 6) whose set journal is written, then the flush of its folder fails
    (EIO): nothing of the rerun is in place. On main the journal stayed, and the next reader of the folder did its
    removals: four of the earlier curation's six shards deleted, read as a curation of two."""
    out = tmp_path / "sft"
    assert CliRunner().invoke(app, _curate(made["old"], out, 1)).exit_code == 0
    before, envs = snapshot(out), _envs(out)
    with _failing("fsync", errno.EIO, 1, kind=_a_folder):
        failed = CliRunner().invoke(app, _curate(made["new"], out, 4))
    assert failed.exit_code == 1, failed.output
    _one_error(failed.output)
    assert not list(out.glob(".set-*")) and temp_files(out) == []
    assert _envs(out) == envs and snapshot(out) == before
    assert CliRunner().invoke(app, _curate(made["new"], out, 4)).exit_code == 0
    assert _envs(out) and not _envs(out) & envs


def test_a_rename_failing_in_the_middle_of_a_set_says_the_folder_holds_two_runs(
        made: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811
    """A curate rerun over 6 shards whose 2nd rename fails (EIO): the first shard is the rerun's, the rest the
    earlier run's. On main the line said "any earlier version of the file is unchanged"; readers refuse the mix."""
    out = tmp_path / "sft"
    assert CliRunner().invoke(app, _curate(made["old"], out, 1)).exit_code == 0
    envs = _envs(out)
    with _failing("replace", errno.EIO, 2, kind=lambda source: str(source).endswith(".parquet")
                  and Path(source).parent == out):
        failed = CliRunner().invoke(app, _curate(made["new"], out, 1))
    assert failed.exit_code == 1, failed.output
    line = _one_error(failed.output)
    assert "unchanged" not in line and "two runs" in line and "run the command again" in line, line
    assert CliRunner().invoke(app, _curate(made["new"], out, 1)).exit_code == 0  # the whole set, again
    assert _envs(out) and not _envs(out) & envs


def _a_file(fd: Any) -> bool:
    return isinstance(fd, int) and stat.S_ISREG(os.fstat(fd).st_mode)


def test_a_full_disk_while_a_trained_checkpoint_is_finished_names_where_the_weights_are(tmp_path: Path) -> None:
    """After the training, the writes that complete the checkpoint (its manifest here; its records and curve in
    `train_sft` / `train_rl`) meet a full disk. On main the line was "cannot write .../.sft.partial/...; any earlier
    version of the file is unchanged", of a file in the staging folder the next training deletes with the weights."""
    from trainers.checkpoint_files import replace_dir

    out, staging = tmp_path / "sft", tmp_path / ".sft.partial"
    for folder, marker in ((out, b"old"), (staging, b"new")):
        folder.mkdir()
        (folder / "config.json").write_bytes(b'{"v": "%s"}' % marker)
        (folder / "model.safetensors").write_bytes(marker * 100)
    with _failing("fsync", errno.ENOSPC, 1, kind=_a_file), pytest.raises(OSError) as caught:
        replace_dir(staging, out)
    message = str(caught.value)
    assert "free disk space" in message and f"weights are in {staging}" in message and "move it away" in message
    assert "any earlier version of the file is unchanged" not in message, message
    assert (out / "model.safetensors").read_bytes() == b"old" * 100  # the previous checkpoint, as it was
    assert (staging / "model.safetensors").read_bytes() == b"new" * 100 and temp_files(staging) == []
    replace_dir(staging, out)  # with room again, the checkpoint goes in place
    assert (out / "model.safetensors").read_bytes() == b"new" * 100
