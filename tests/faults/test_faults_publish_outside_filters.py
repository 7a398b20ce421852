"""Fault corpus, filters of the local dataset repository that a publish did not run as the user's git does.

(1) A filter defined outside the repository: `git lfs install` writes `filter.lfs.clean`, `.smudge`, `.process` and
`.required` into the user's global git config (`~/.gitconfig`; some images into the system's `/etc/gitconfig`), and
the repository's `.gitattributes` (here `.git/info/attributes`) applies it. A publish reads no global or system
config (GIT_CONFIG_GLOBAL=/dev/null for its git commands), so the filter was never run: the version's files went
into git raw where the user's own git commits what the filter makes (LFS pointers: a push to the Hub then refuses the
raw files over 10 MiB), a required filter that fails did not stop it, and one that never answers was not under the
stall limit (COWORKENV_FILTER_TIMEOUT_S) because it did not run. Now the filter settings of those configs are given
to the publish's git commands, under the repository's own (a setting there wins, as in git), and a stall or a
failure names the file that sets it.

(2) A filter that keeps working for ever without reading or writing anything (a loop: busy, not asleep): its CPU
time was taken for progress, so the publish and the repository's lock were held for good. Now only git's own CPU
time counts; a filter's progress is what it reads and writes.

The tests never read the real `~/.gitconfig` or `/etc/gitconfig`: GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM point at
files of the test, GIT_CONFIG_NOSYSTEM is set where the system's is not the one tested."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import PublishError
from tests.faults.harness import (
    copied_repo,
    ended,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

BUSY_S = 12  # how long the busy filter loops: on `main` the left thread ends after it


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    """A repository holding v1, published once for the module (no filter anywhere); each case works on a copy."""
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def repo(tmp_path: Path, published: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = copied_repo(published, tmp_path)
    # Nothing of this machine's own git configs: each case names the files it means.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_SYSTEM", raising=False)
    # The repository's attributes apply filter x to *.bin; its own config defines no filter.
    (copy / ".git" / "info").mkdir(exist_ok=True)
    (copy / ".git" / "info" / "attributes").write_text("*.bin filter=x\n")
    return copy


def _config(path: Path, **settings: str) -> Path:
    """A git config file at `path` defining filter x with `settings` (clean=..., smudge=..., required=...)."""
    lines = ['[filter "x"]', *(f'\t{key} = "{value}"' for key, value in settings.items())]
    path.write_text("\n".join(lines) + "\n")
    return path


def _ends(call: Callable[[], object], within_s: float = 10.0) -> object:
    """What `call` returns or raises, run in a thread given `within_s`; fails when it has not ended (a hang)."""
    return ended(call, within_s, "the publish hangs")[0]


def _on_v1_as_before(repo: Path) -> None:
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert git_quiet(repo, "rev-parse", "HEAD") == git_quiet(repo, "rev-parse", "v1^{commit}")
    assert (repo / "weights.bin").read_text() == "v1 weights\n"  # what readers of the folder load
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"


@pytest.mark.parametrize("where", ["global", "system", "included by the global"])
def test_a_filter_defined_in_the_global_or_system_config_is_applied(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """As the user's git commits it: the committed file is what the clean filter made of it (`git lfs install`
    defines filter.lfs the same way); the folder keeps the file as written."""
    settings = {"clean": "tr a-z A-Z", "smudge": "tr A-Z a-z"}
    if where == "global":
        _config(tmp_path / "global", **settings)
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "global"))
    elif where == "system":
        monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")
        monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(_config(tmp_path / "system", **settings)))
    else:
        _config(tmp_path / "lfs.inc", **settings)
        (tmp_path / "global").write_text(f"[include]\n\tpath = {tmp_path / 'lfs.inc'}\n")
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "global"))
    assert publish_version(repo, folders, "v2").tag == "v2"
    assert git_quiet(repo, "show", "v2:weights.bin") == "V2 WEIGHTS\n"
    assert (repo / "weights.bin").read_text() == "v2 weights\n"
    # The user's own git (which reads the same config) finds the folder as the version has it.
    assert git_quiet(repo, "status", "--porcelain") == ""


def test_the_repository_own_filter_setting_wins_over_the_global_one(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard (passes on `main`, which read the repository's config alone): as in git, a setting of the
    repository's own config is not overridden by the global config's."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_config(tmp_path / "global", clean="cat")))
    git_quiet(repo, "config", "filter.x.clean", "tr a-z A-Z")
    assert publish_version(repo, folders, "v2").tag == "v2"
    assert git_quiet(repo, "show", "v2:weights.bin") == "V2 WEIGHTS\n"


def test_a_required_global_filter_that_fails_is_named_with_the_file_that_sets_it(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's git refuses to commit through it; on `main` the publish committed the raw file without a word."""
    config = _config(tmp_path / "global", clean="sh -c 'echo lfs: not installed >&2; exit 2'", required="true")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert "because a filter of the repository failed" in told and "clean filter 'x' failed" in told
    assert f"filter.x.clean = `sh -c 'echo lfs: not installed >&2; exit 2'` (set in {config})" in told
    assert f"git config --file {config} --remove-section filter.x" in told
    _on_v1_as_before(repo)


def test_a_global_filter_that_never_answers_is_stopped_and_named(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", "0.5")
    program = tmp_path / "never-answers"
    program.write_text("#!/bin/sh\nsleep 20\n")
    program.chmod(0o755)
    config = _config(tmp_path / "global", clean=str(program))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert f"filter.x.clean = `{program}` (set in {config})" in told and "did nothing for 0.5 s" in told
    assert "nothing was published" in told
    _on_v1_as_before(repo)
    assert subprocess.run(["pgrep", "-f", str(program)], capture_output=True, text=True).stdout == "", \
        "the filter was left running"


def test_a_filter_that_only_burns_cpu_for_ever_is_stopped(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter caught in a loop: running all the time, reading and writing nothing. On `main` its CPU time was
    progress, and the publish waited for it (here it gives up after BUSY_S: "DID NOT END" in 10 s)."""
    monkeypatch.setenv("COWORKENV_FILTER_TIMEOUT_S", "0.5")
    program = tmp_path / "loops"
    program.write_text(f"#!{sys.executable}\nimport time\nend = time.monotonic() + {BUSY_S}\n"
                       "while time.monotonic() < end:\n    pass\n")
    program.chmod(0o755)
    git_quiet(repo, "config", "filter.x.clean", str(program))
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert f"filter.x.clean = `{program}`" in told and "did nothing for 0.5 s" in told
    assert "nothing was published" in told
    _on_v1_as_before(repo)
    assert subprocess.run(["pgrep", "-f", str(program)], capture_output=True, text=True).stdout == "", \
        "the filter was left running"
    # What the message says: with the filter removed, the version publishes.
    git_quiet(repo, "config", "--remove-section", "filter.x")
    assert publish_version(repo, folders, "v2").tag == "v2"
    assert os.path.getsize(repo / "weights.bin") > 0
