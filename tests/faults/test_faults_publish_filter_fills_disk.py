"""Fault corpus, a filter of the local dataset repository's that writes for ever into its own store: a long-running
`process` filter (git-lfs style) or a clean filter that keeps a copy of what it reads, writing into
`.git/lfs/objects` without end (a loop on a retry that appends, a program reading a device). Its output to git is
short, so git's memory does not grow (faults62's limit), and it writes all the time, so it never stalls (faults44's):
the publish wrote on until the repository's disk was full, failing every other writer on it (another user's
training checkpoint, the database of a service) and, at the end, this publish's own commit.

Now a git command that runs the repository's filters is stopped, with what it started, once the repository's disk has
less free than COWORKENV_FILTER_MIN_FREE_MB (1 GiB, or half of what was free when it began, whichever is less), and
the publish says which filter, where, what it wrote, and what to do; the folder keeps its last version.

The cases set the limit to 96 MiB under what is free when they begin, and bound each filter's writing at 512 MiB
(on `main` each publish wrote all of it, and published).

faults64: the watch's look at the disk is a poll (every 0.25 s at most), and under the parallel suite's load a look
came late: the filter wrote all 512 MiB before it (flaky). Now the git command and its filters also run with
RLIMIT_FSIZE at what was free, less the space to leave, plus a margin (64 MiB at most): the kernel stops a writer
there however late a look comes, and the look made once the command has ended tells it. The `late` cases make every
look come only once the command has ended, the worst a loaded machine can do (on `main` they wrote 512 MiB and
published)."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import PublishError
from tests.faults.harness import (
    copied_repo,
    ended,
    filter_x,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

BOUND_MB = 512  # what each endless filter writes at most, so that on `main` (no limit) a case ends
BELOW_MB = 96  # the limit: this much under what the disk has free when a case begins


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    """A repository holding v1, published once for the module; each case works on a copy."""
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def repo(tmp_path: Path, published: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = copied_repo(published, tmp_path)
    free_mb = shutil.disk_usage(copy).free // (1 << 20)
    if free_mb < 2 * BELOW_MB:
        pytest.skip(f"{free_mb} MiB free here: too little to fill {BELOW_MB} MiB of it")
    monkeypatch.setenv("COWORKENV_FILTER_MIN_FREE_MB", str(free_mb - BELOW_MB))
    return copy


@pytest.fixture(params=["prompt", "late"])
def looks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How the publish's watch looks at the command: as it does, or only once the command has ended (or after 20 s),
    as a machine too loaded to run the watch in time would."""
    if request.param == "late":
        from coworkenv.store import _git_filter

        activity = _git_filter._activity

        def late(group: int) -> object:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    if Path(f"/proc/{group}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
                        break
                except (OSError, IndexError):
                    break
                time.sleep(0.02)
            return activity(group)

        monkeypatch.setattr(_git_filter, "_activity", late)
    return str(request.param)


def _ends(call: Callable[[], object], within_s: float = 30.0) -> object:
    return ended(call, within_s, "the publish runs on")[0]


def _writer(tmp_path: Path, then: str) -> Path:
    """A filter program that writes for ever (bounded at BOUND_MB) into the repository's LFS store, then runs
    `then`."""
    program = tmp_path / "fills-the-store"
    program.write_text('#!/bin/sh\nmkdir -p "$GIT_DIR/lfs/objects"\n'
                       f'head -c {BOUND_MB}M /dev/zero > "$GIT_DIR/lfs/objects/obj-$$"\n{then}\n')
    program.chmod(0o755)
    return program


# A clean filter that keeps a copy (then passes its input through), a long-running `process` filter that fills the
# store before its handshake (then quits: git goes on without it, the filter not being required).
@pytest.mark.parametrize(("setting", "then"), [("clean", "exec cat"), ("process", "exit 1")], ids=["clean", "process"])
def test_a_filter_that_writes_for_ever_into_its_store_is_stopped_before_the_disk_is_full(
        tmp_path: Path, repo: Path, folders: dict[str, Path], setting: str, then: str, looks: str) -> None:
    program = _writer(tmp_path, then)
    filter_x(repo, **{setting: str(program)})
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    written = sum(path.stat().st_size for path in (repo / ".git" / "lfs" / "objects").glob("obj-*"))
    for path in (repo / ".git" / "lfs" / "objects").glob("obj-*"):
        path.unlink()
    assert isinstance(failed, PublishError), f"published, the filter having written {written >> 20} MiB"
    told = str(failed)
    assert f"filter.x.{setting} = `{program}`" in told and str(repo) in told
    assert "filled the repository's disk" in told and "COWORKENV_FILTER_MIN_FREE_MB" in told
    assert f"du -sh {repo}/.git/*" in told and f"git -C {repo} config --remove-section filter.x" in told
    assert "nothing was published" in told
    assert written < (BOUND_MB - 64) << 20, f"stopped only after {written >> 20} MiB"
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"
    found = subprocess.run(["pgrep", "-f", str(program)], capture_output=True, text=True)
    assert found.stdout == "", "the filter was left running"


def test_a_filter_that_writes_within_what_is_free_is_applied(
        repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit is on what is left free, not on what a filter writes: a store of 8 MiB, within it, is kept."""
    filter_x(repo, clean='sh -c \'mkdir -p "$GIT_DIR/lfs/objects"; head -c 8M /dev/zero > "$GIT_DIR/lfs/objects/o"; '
                        'cat\'')
    assert _ends(lambda: publish_version(repo, folders, "v2")).tag == "v2"  # type: ignore[attr-defined]
    assert (repo / ".git" / "lfs" / "objects" / "o").stat().st_size == 8 << 20


@pytest.mark.parametrize("setting", ["lots", "-1", "inf"])
def test_a_free_space_setting_that_is_not_a_size_stops_the_publish_before_it_writes(
        repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    monkeypatch.setenv("COWORKENV_FILTER_MIN_FREE_MB", setting)
    filter_x(repo, clean="cat")
    with pytest.raises(PublishError) as refused:
        publish_version(repo, folders, "v2")
    told = str(refused.value)
    assert f"COWORKENV_FILTER_MIN_FREE_MB={setting!r}" in told and "nothing was published" in told
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"


def test_the_default_leaves_a_gib_or_half_of_what_is_free(monkeypatch: pytest.MonkeyPatch) -> None:
    from coworkenv.store._git_filter import filter_min_free_bytes

    monkeypatch.delenv("COWORKENV_FILTER_MIN_FREE_MB", raising=False)
    assert filter_min_free_bytes(100 << 30) == 1 << 30
    assert filter_min_free_bytes(600 << 20) == 300 << 20
