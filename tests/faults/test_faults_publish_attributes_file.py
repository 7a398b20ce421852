"""Fault corpus, attributes of the user's git that a publish did not apply: `core.attributesFile`.

A filter (git-lfs is one) runs only on the files that attributes apply it to. Besides the repository's `.gitattributes`
and `.git/info/attributes`, git reads the file that `core.attributesFile` of the user's global (or the system's) git
config names: a user who keeps `*.parquet filter=lfs` there, as for every repository of theirs, has their own git
commit LFS pointers. A publish reads no global or system config (GIT_CONFIG_GLOBAL=/dev/null for its git commands;
faults58 gave it their `filter.*` settings, not this one), so the attributes of that file were never applied: the
version's files went into git raw (a push to the Hub then refuses raw files over 10 MiB, the user's `git status` finds
every one of them changed), and a required filter that fails there, or one that hangs, did not stop it. Now the
`core.attributesFile` of the global and system configs is given to a publish's git commands, unless the repository's
own config sets one (which wins, as in git), and the filters it applies run under the stall watch.

The tests never read the real `~/.gitconfig` or `/etc/gitconfig`: GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM point at
files of the test, GIT_CONFIG_NOSYSTEM is set where the system's is not the one tested, HOME and XDG_CONFIG_HOME at
folders of the test."""

from __future__ import annotations

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

UPPER = {"clean": "tr a-z A-Z", "smudge": "tr A-Z a-z"}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    """A repository holding v1, published once for the module (no filter, no attributes); each case works on a copy."""
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def repo(tmp_path: Path, published: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = copied_repo(published, tmp_path)
    # Nothing of this machine's own git configs or home: each case names the files it means.
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_SYSTEM", raising=False)
    return copy


def _config(path: Path, attributes: Path | str | None = None, **settings: str) -> Path:
    """A git config file at `path`: core.attributesFile = `attributes`, and filter x defined by `settings`."""
    lines = [f"[core]\n\tattributesFile = {attributes}"] if attributes is not None else []
    if settings:
        lines += ['[filter "x"]', *(f'\t{key} = "{value}"' for key, value in settings.items())]
    path.write_text("\n".join(lines) + "\n")
    return path


def _applies_x(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("*.bin filter=x\n")
    return path


def _ends(call: Callable[[], object], within_s: float = 10.0) -> object:
    """What `call` returns or raises, run in a thread given `within_s`; fails when it has not ended (a hang)."""
    return ended(call, within_s, "the publish hangs")[0]


def _committed_through_the_filter(repo: Path, folders: dict[str, Path]) -> None:
    """As the user's git commits it: what the clean filter made of the file; the folder keeps the file as written,
    and the user's own git (which reads the same configs) finds it as the version has it."""
    assert publish_version(repo, folders, "v2").tag == "v2"
    assert git_quiet(repo, "show", "v2:weights.bin") == "V2 WEIGHTS\n", "committed raw: the attributes were not applied"
    assert (repo / "weights.bin").read_text() == "v2 weights\n"
    assert git_quiet(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize("where", ["global", "system"])
def test_the_attributes_file_of_the_global_or_system_config_is_applied(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    config = _config(tmp_path / where, _applies_x(tmp_path / "attributes"), **UPPER)
    if where == "global":
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    else:
        monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")
        monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(config))
    _committed_through_the_filter(repo, folders)


def test_a_home_relative_attributes_file_applies_a_filter_of_the_repository(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """`attributesFile = ~/.gitattributes` (git expands `~`), in a global config that names no filter: the filter
    is the repository's own."""
    _applies_x(tmp_path / "home" / ".gitattributes")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_config(tmp_path / "global", "~/.gitattributes")))
    for setting, program in UPPER.items():
        git_quiet(repo, "config", f"filter.x.{setting}", program)
    _committed_through_the_filter(repo, folders)


def test_a_required_filter_that_fails_on_the_attributes_file_stops_the_publish(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's git refuses to commit through it; on `main` the publish committed the raw file without a word."""
    attributes = _applies_x(tmp_path / "attributes")
    config = _config(tmp_path / "global", attributes, clean="sh -c 'echo lfs: not installed >&2; exit 2'",
                     required="true")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert "because a filter of the repository failed" in told and "clean filter 'x' failed" in told
    assert f"{attributes} (core.attributesFile, set in {config})" in told
    assert f"git config --file {config} --remove-section filter.x`, or `filter=x` from the attributes that apply it" \
        in told
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"


def test_the_repository_own_attributes_file_wins_over_the_global_one(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard (passes on `main`): as in git, the repository's own core.attributesFile is read instead of
    the global config's; here it applies no filter, so the file is committed as written."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_config(tmp_path / "global", _applies_x(tmp_path / "attributes"),
                                                        **UPPER)))
    (tmp_path / "own-attributes").write_text("*.txt text\n")
    git_quiet(repo, "config", "core.attributesFile", str(tmp_path / "own-attributes"))
    assert publish_version(repo, folders, "v2").tag == "v2"
    assert git_quiet(repo, "show", "v2:weights.bin") == "v2 weights\n"


def test_git_default_attributes_file_is_applied_without_any_setting(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard (passes on `main`): with no core.attributesFile, git reads $XDG_CONFIG_HOME/git/attributes
    (~/.config/git/attributes); a publish does too."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    _applies_x(tmp_path / "xdg" / "git" / "attributes")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_config(tmp_path / "global", **UPPER)))
    _committed_through_the_filter(repo, folders)
