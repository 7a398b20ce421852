"""Fault corpus, git missing or broken on the machine that publishes into the local dataset repository: a slim
container without git, a PATH that lost /usr/bin (a cron job, a service unit), a `git` that is not executable or a
wrapper whose interpreter is gone. Main said "a symbolic link on the way to git loops or points nowhere; fix or
remove the link". The publish now says that git is missing (or which git could not be started) and what to do;
the repository keeps its last version, and with git back the same publish lands."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import publish_folder, publish_release, snapshot

MISSING = "git is not installed or not on PATH"


def _no_git(where: Path) -> str:
    where.mkdir()
    return str(where)


def _not_executable(where: Path) -> str:
    where.mkdir()
    (where / "git").write_text("#!/bin/sh\nexec /usr/bin/git \"$@\"\n")
    (where / "git").chmod(0o644)
    return str(where)


def _interpreter_gone(where: Path) -> str:
    where.mkdir()
    (where / "git").write_text("#!/opt/gone/bin/sh\nexec /usr/bin/git \"$@\"\n")
    (where / "git").chmod(0o755)
    return str(where)


# What PATH holds -> what the message must say.
PATHS: dict[str, tuple[Callable[[Path], str], str]] = {
    "no git on PATH": (_no_git, MISSING),
    "PATH empty": (lambda _: "", MISSING),
    "git not executable": (_not_executable, MISSING),  # which() skips it: for the shell it is not there either
    "git's interpreter gone": (_interpreter_gone, "could not be started"),
}


def _assert_told(error: PublishError, says: str) -> None:
    message = str(error)
    assert says in message and ("install git" in message or "reinstall git" in message), message
    assert "symbolic link" not in message, message


@pytest.mark.parametrize("first", [True, False], ids=["first publish", "over a version"])
@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_publish_without_a_usable_git_says_so_and_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  path: str, first: bool) -> None:
    repo = tmp_path / "repo"
    if not first:
        publish_release(str(repo), "v1")
    before = snapshot(repo)
    make, says = PATHS[path]
    with monkeypatch.context() as moved:
        moved.setenv("PATH", make(tmp_path / "bin"))
        with pytest.raises(PublishError) as caught:
            publish_release(str(repo), "v2")
    _assert_told(caught.value, says)
    assert snapshot(repo) == before
    publish_release(str(repo), "v2")  # git back: the same publish lands
    assert LocalGitPublisher(repo).published_versions() == (["v2"] if first else ["v1", "v2"])


def test_a_checkpoint_publish_without_git_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkpoint = tmp_path / "checkpoint"
    checkpoint.mkdir()
    (checkpoint / "model.safetensors").write_bytes(b"weights")
    monkeypatch.setenv("PATH", _no_git(tmp_path / "bin"))
    with pytest.raises(PublishError) as caught:
        publish_folder(str(tmp_path / "models"), str(checkpoint), "v1")
    _assert_told(caught.value, MISSING)
    assert os.listdir(tmp_path / "models") == []
