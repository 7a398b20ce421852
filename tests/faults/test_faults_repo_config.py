"""Fault corpus, the local dataset repository's own git settings: an operator who means to push `data/hub/dataset`
somewhere sets signing or a line-ending policy in its `.git/config` (`git config commit.gpgSign true`, `core.autocrlf
true` with `core.safecrlf true`). The global and system git config were ignored already; these stopped every publish
half way, in a batch run where no one answers gpg's prompt, with git's words only ("failed to write commit object",
"unable to sign the tag", "LF would be replaced by CRLF") and "fix the repository state". A publish is a machine
commit under a fixed identity: it now lands, its files byte for byte what was written, and the settings stay as the
operator set them for their own commits."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import publish_folder, publish_release, run_child, snapshot

Setup = Callable[[Path], None]


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"})
    return done.stdout


def _config(*pairs: tuple[str, str]) -> Setup:
    def setup(repo: Path) -> None:
        for key, value in pairs:
            _git(repo, "config", key, value)
    return setup


def _attributes(text: str, *pairs: tuple[str, str]) -> Setup:
    def setup(repo: Path) -> None:
        (repo / ".git" / "info").mkdir(exist_ok=True)
        (repo / ".git" / "info" / "attributes").write_text(text)
        _config(*pairs)(repo)
    return setup


SETTINGS: dict[str, Setup] = {
    "commit.gpgSign": _config(("commit.gpgSign", "true")),
    "tag.gpgSign": _config(("tag.gpgSign", "true")),
    "ssh signing, key gone": _config(("gpg.format", "ssh"), ("user.signingKey", "/nonexistent/id_ed25519"),
                                     ("commit.gpgSign", "true"), ("tag.gpgSign", "true")),
    "autocrlf + safecrlf": _config(("core.autocrlf", "true"), ("core.safecrlf", "true")),
    "eol=crlf attributes + safecrlf": _attributes("* text=auto eol=crlf\n", ("core.safecrlf", "true")),
}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_a_publish_lands_whatever_signing_or_line_ending_policy_the_repository_sets(tmp_path: Path,
                                                                                  setting: str) -> None:
    clean, repo = tmp_path / "clean", tmp_path / "repo"
    for folder in (clean, repo):
        publish_release(str(folder), "v1")
    publish_release(str(clean), "v2")
    SETTINGS[setting](repo)
    before = _git(repo, "config", "--local", "--list")
    done = run_child([str(repo), "v2"], call="tests.faults.harness:publish_release", preloaded=True)
    assert done.returncode == 0, done.stderr
    assert _git(repo, "tag", "--list").split() == ["v1", "v2"]
    for tag in ("v1", "v2"):  # the committed bytes are those of an undisturbed publish
        assert _git(repo, "rev-parse", f"{tag}^{{tree}}") == _git(clean, "rev-parse", f"{tag}^{{tree}}")
    assert snapshot(repo) == snapshot(clean) or setting.startswith(("autocrlf", "eol"))  # checked out with CRLF
    assert _git(repo, "config", "--local", "--list") == before  # the operator's settings are left as they were


@pytest.mark.parametrize("setting", ["commit.gpgSign", "tag.gpgSign"])
def test_a_first_publish_into_a_repository_made_with_signing_on_lands(tmp_path: Path, setting: str) -> None:
    # The operator ran `git init` and set signing before the first publish (or `make run` made it and they set it).
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=main")
    SETTINGS[setting](repo)
    done = run_child([str(repo), "v1"], call="tests.faults.harness:publish_release", preloaded=True)
    assert done.returncode == 0, done.stderr
    assert _git(repo, "tag", "--list").split() == ["v1"]


def test_a_checkpoint_published_into_a_repository_that_signs_lands(tmp_path: Path) -> None:
    checkpoint, repo = tmp_path / "checkpoint", tmp_path / "models"
    checkpoint.mkdir()
    (checkpoint / "model.safetensors").write_bytes(b"weights" * 100)
    publish_folder(str(repo), str(checkpoint), "v1")
    SETTINGS["commit.gpgSign"](repo)
    (checkpoint / "model.safetensors").write_bytes(b"other weights" * 100)
    done = run_child([str(repo), str(checkpoint), "v2"], call="tests.faults.harness:publish_folder", preloaded=True)
    assert done.returncode == 0, done.stderr
    assert _git(repo, "show", "v2:model.safetensors") == "other weights" * 100
