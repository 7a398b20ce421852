"""Fault corpus, a filter of the local dataset repository's that writes for ever on ANOTHER disk than the
repository's: a clean filter keeping copies of what it reads, or logging, in the temporary folder, a home or a cache
folder (`/tmp/...`, `~/.cache/...`), which is often a disk of its own (a tmpfs, a small root partition). Its output to
git is short (git's memory does not grow) and it writes all the time (it never stalls), and faults63's watch looked only
at the repository's disk: the publish ran on until that other disk was full, failing every other writer on it (every
program's temporary files, another user's home), and published.

Now the watch also looks at the disks of the files the command's processes hold open for writing (/proc/<pid>/fd and
their fdinfo flags): once one has less free than COWORKENV_FILTER_MIN_FREE_MB, or half of what it had free when the
watch first saw a file written there (whichever is less), the command is stopped with what it started, and the publish
names the file, the disk's free space, the filter and what to do; the folder keeps its last version.

A second disk cannot be mounted here, so the cases give the folder the filter writes in a disk of its own as the
watch sees it: `free_bytes` of a path in it is DISK_MB less what the folder holds, `disk_of` a device of its own. Each filter writes BOUND_MB there
in 1 MiB pieces, at most 20 a second, and passes its input through, then keeps the file open 5 s more, as an endless
writer would (a look coming late on a loaded machine still sees it): on `main` each publish wrote all of it, and
published. The pace is the watch's limit, not the filter's kindness: the watch is a poll (up to 0.25 s between looks,
later on a loaded machine), so what a writer puts there between two looks goes through; at full speed `head -c 160M`
wrote all of it before the first look in a fresh clone's suite at a load of 8, and the case failed on the bound below."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coworkenv.store import PublishError, _git_filter
from tests.faults.harness import (
    copied_repo,
    ended,
    filter_x,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

BOUND_MB = 160  # what the filter writes at most, so that on `main` a case ends
DISK_MB = 64  # the other disk's size as the watch sees it: stopped once under half of it is free (32 MiB written)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder on a disk of DISK_MB of its own, as the publish's watch sees it."""
    folder = tmp_path / "other-disk"
    folder.mkdir()
    real = _git_filter.free_bytes

    def free(path: Path) -> int | None:
        if Path(path).resolve().is_relative_to(folder):
            held = sum(file.stat().st_size for file in folder.rglob("*") if file.is_file())
            return max(0, (DISK_MB << 20) - held)
        return real(path)

    monkeypatch.setattr(_git_filter, "free_bytes", free)
    disk_of = getattr(_git_filter, "disk_of", lambda path, found: found.st_dev)  # (main had none)
    monkeypatch.setattr(_git_filter, "disk_of", lambda path, found: (
        -1 if Path(path).resolve().is_relative_to(folder) else disk_of(path, found)), raising=False)
    return folder


@pytest.fixture()
def repo(tmp_path: Path, published: Path) -> Path:
    copy = copied_repo(published, tmp_path)
    if shutil.disk_usage(copy).free < (BOUND_MB + 1100) << 20:
        pytest.skip("too little free here for the filter's writes")
    return copy


@pytest.mark.parametrize("name", ["copies/weights.copy", "filter.log"])
def test_a_filter_that_writes_for_ever_on_another_disk_is_stopped_before_that_disk_is_full(
        tmp_path: Path, repo: Path, folders: dict[str, Path], elsewhere: Path, name: str) -> None:
    target = elsewhere / name
    program = tmp_path / "fills-another-disk"
    program.write_text(f'#!/bin/sh\nmkdir -p "{target.parent}"\nexec 3>>"{target}"\n'
                       f'i=0; while [ $i -lt {BOUND_MB} ]; do head -c 1M /dev/zero >&3; sleep 0.05; i=$((i + 1)); done\n'
                       'cat\nsleep 5\n')
    program.chmod(0o755)
    filter_x(repo, clean=str(program))
    failed = ended(lambda: publish_version(repo, folders, "v2"), 60.0, "the publish runs on")[0]
    written = target.stat().st_size if target.exists() else 0
    target.unlink(missing_ok=True)
    assert isinstance(failed, PublishError), f"published, the filter having written {written >> 20} MiB"
    told = str(failed)
    assert f"filter.x.clean = `{program}`" in told and str(target) in told and "another disk" in told
    assert "nothing was published" in told and f"git -C {repo} config --remove-section filter.x" in told
    assert written < (BOUND_MB - 32) << 20, f"stopped only after {written >> 20} MiB"
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"


def test_a_filter_that_writes_a_little_on_another_disk_is_applied(
        repo: Path, folders: dict[str, Path], elsewhere: Path) -> None:
    """Half of what the other disk has free is the limit there: a filter's log of 4 MiB a file (git runs the clean
    filter a few times), within it, is kept."""
    log = elsewhere / "filter.log"
    filter_x(repo, clean=f'sh -c \'exec 3>>"{log}"; head -c 4M /dev/zero >&3; cat\'')
    assert ended(lambda: publish_version(repo, folders, "v2"), 60.0, "the publish runs on")[0].tag == "v2"  # type: ignore[attr-defined]
    written = log.stat().st_size
    assert written and written % (4 << 20) == 0 and written < 32 << 20
