"""Fault corpus, a clean or smudge filter of the local dataset repository's own (`filter.X.clean`, `.smudge`,
`.process` in its config, applied by `.gitattributes` or `.git/info/attributes`; git-lfs is one): git runs it at
`git status`, `add`, `hash-object --path` and `read-tree -u`, and a publish waited on it for ever. One that never
answers (a `git-lfs` waiting on an unreachable server, a prompt no one can answer) held the publish, and the
repository's lock, at `git add` half way: the new version's files in the folder, readers of the folder loading them,
no commit. One that failed stopped the publish with git's words and "fix the repository state".

Now a git command that runs the repository's filters is stopped, with what it started, once it has stalled (no CPU
time, no read or write, for COWORKENV_FILTER_TIMEOUT_S, 60 s), and the publish says which filter, where, and what to
do; a filter that fails is named the same way; the folder is put back on its last version, and no lock is left. A
filter that works is still applied (it is part of what a version's files are).

On `main` the hangs hang (the publish runs in a thread here, given 10 s: "DID NOT END")."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import (
    copied_repo,
    ended,
    filter_x,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

HANG_S = 20  # what each hanging filter sleeps: on `main`, the left thread ends after it


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    """A repository holding v1 then v2, published once for the module; each case works on a copy."""
    repo = published_once(tmp_path_factory, folders)
    publish_version(repo, folders, "v2")
    return repo


@pytest.fixture()
def repo(tmp_path: Path, published: Path) -> Path:
    copy = copied_repo(published, tmp_path)
    git_quiet(copy, "reset", "--quiet", "--hard", "v1")  # v2's files are new to the folder again (tag v2 dropped below)
    git_quiet(copy, "tag", "-d", "v2")
    # Files older than the index: git takes them as unchanged without reading them (through a filter) again.
    for path in (copy / "weights.bin", copy / "README.md"):
        os.utime(path, (path.stat().st_mtime - 60,) * 2)
    git_quiet(copy, "update-index", "--refresh")
    return copy


def _ends(call: Callable[[], object], within_s: float = 10.0) -> object:
    """What `call` returns or raises, run in a thread given `within_s`; fails when it has not ended (a hang)."""
    return ended(call, within_s, "the publish hangs")[0]


def _on_v1_as_before(repo: Path) -> None:
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert git_quiet(repo, "rev-parse", "HEAD") == git_quiet(repo, "rev-parse", "v1^{commit}")
    assert (repo / "weights.bin").read_text() == "v1 weights\n"  # what readers of the folder load
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"
    assert not (repo / ".git" / "coworkenv-replaced").exists()


def _hanging(tmp_path: Path) -> Path:
    """A filter program that never answers (it reads nothing, writes nothing)."""
    program = tmp_path / "never-answers"
    program.write_text(f"#!/bin/sh\nsleep {HANG_S}\n")
    program.chmod(0o755)
    return program


def _no_filter_left(program: Path) -> None:
    found = subprocess.run(["pgrep", "-f", str(program)], capture_output=True, text=True)
    assert found.stdout == "", "the filter was left running"


@pytest.mark.parametrize("setting", ["clean", "process"])
def test_a_filter_that_never_answers_at_git_add_is_stopped_and_named(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", "0.5")
    program = _hanging(tmp_path)
    filter_x(repo, **{setting: str(program)})
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert f"filter.x.{setting} = `{program}`" in told and str(repo) in told
    assert "did nothing for 0.5 s" in told and "stopped it" in told and "COWORKENV_FILTER_TIMEOUT_S" in told
    assert f"git -C {repo} config --remove-section filter.x" in told
    assert "nothing was published" in told
    _on_v1_as_before(repo)
    _no_filter_left(program)
    # What the message says: with the filter removed, the version publishes.
    git_quiet(repo, "config", "--remove-section", "filter.x")
    assert LocalGitPublisher(repo).publish_folder(folders["v2"], "v2", "# v2\n").tag == "v2"
    assert (repo / "weights.bin").read_text() == "v2 weights\n"


def test_a_smudge_filter_that_never_answers_when_a_version_is_published_again_is_stopped(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """v1 published again after v2: the folder is written from v1's tree (`read-tree -u`), through the smudge."""
    publish_version(repo, folders, "v2")
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", "0.5")
    program = _hanging(tmp_path)
    filter_x(repo, clean="cat", smudge=str(program))
    failed = _ends(lambda: publish_version(repo, folders, "v1"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert f"filter.x.smudge = `{program}`" in told and "did nothing for 0.5 s" in told
    assert git_quiet(repo, "tag", "--list").split() == ["v1", "v2"]
    assert git_quiet(repo, "rev-parse", "HEAD") == git_quiet(repo, "rev-parse", "v2^{commit}")
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"
    _no_filter_left(program)
    # The folder keeps v2's files, which readers load: put back without the smudge that never answers.
    assert "failed too" not in told and "nothing was published" in told
    assert (repo / "weights.bin").read_text() == "v2 weights\n"
    assert not (repo / ".git" / "coworkenv-replaced").exists()
    git_quiet(repo, "config", "--remove-section", "filter.x")
    assert publish_version(repo, folders, "v1").tag == "v1"
    assert (repo / "weights.bin").read_text() == "v1 weights\n"


def test_a_required_filter_that_fails_is_named_and_the_folder_keeps_its_version(
        repo: Path, folders: dict[str, Path]) -> None:
    filter_x(repo, clean="sh -c 'echo lfs: server unreachable >&2; exit 2'", required="true")
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert "because a filter of the repository failed" in told and "clean filter 'x' failed" in told
    assert "filter.x.clean = `sh -c" in told and f"git -C {repo} config --remove-section filter.x" in told
    assert "fix the repository state" not in told
    _on_v1_as_before(repo)


@pytest.mark.parametrize("setting", ["soon", "0"])
def test_a_filter_time_limit_that_is_not_seconds_stops_the_publish_before_it_writes(
        repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", setting)
    with pytest.raises(PublishError) as refused:
        publish_version(repo, folders, "v2")
    told = str(refused.value)
    assert f"COWORKENV_FILTER_TIMEOUT_S={setting!r}" in told and "nothing was published" in told
    _on_v1_as_before(repo)


def test_a_filter_that_works_is_still_applied(repo: Path, folders: dict[str, Path]) -> None:
    """A filter is part of what the version's files are: the committed file is what the clean filter made of it."""
    filter_x(repo, clean="tr a-z A-Z", smudge="tr A-Z a-z")
    assert publish_version(repo, folders, "v2").tag == "v2"
    assert git_quiet(repo, "show", "v2:weights.bin") == "V2 WEIGHTS\n"
    assert (repo / "weights.bin").read_text() == "v2 weights\n"


def test_a_filter_that_takes_longer_than_the_limit_but_keeps_working_is_not_stopped(
        repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit is on a stall, not on the time a filter takes (that of a large dataset is not known): one that
    writes something every 0.25 s runs past 0.5 s in all and is waited for."""
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", "0.5")
    filter_x(repo, clean="sh -c 'for step in 1 2 3 4; do sleep 0.25; echo working >&2; done; cat'")
    assert _ends(lambda: publish_version(repo, folders, "v2")).tag == "v2"  # type: ignore[attr-defined]
    assert git_quiet(repo, "show", "v2:weights.bin") == "v2 weights\n"
