"""Fault corpus, a credential that the local dataset repository's own programs print, told by a publish: a
post-commit hook pushing to a backup in a retry loop traced by the shell (`set -x`: each try's command line, with the
token the variable held, on the error output), a hook that prints the URL it pushes to (`https://user:TOKEN@...`), a
filter whose program was given its token on the command line (`git-lfs-custom --token=...`) and fails. A publish
tells a hook's last line in its warning, and a filter's program and git's line about it in its PublishError: on
`main` each put the token in the log or the error (a PublishError "never holds a token"; the Hub publisher and the
LLM client took held credentials and URLs' user info out of what they tell, the local repository's publisher did
not).

Now what a local publish tells of the repository's programs (a hook's last line, its errors) goes through the one
redaction (`coworkenv/url_credentials.py: scrub_credentials`, with `held_secret_forms`): the credentials this process
holds and every URL's user info and query are taken out."""

from __future__ import annotations

import logging
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

TOKEN = "hf_backupPushToken4f9c2e7a1d"  # the Hub token this process holds (HF_TOKEN)
PASSWORD = "s3cret-backup-pass"  # a password only the hook's URL holds, not the product


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def repo(tmp_path: Path, published: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("COWORKENV_HOOK_TIMEOUT_S", "1")
    return copied_repo(published, tmp_path)


def _ends(call: Callable[[], object]) -> object:
    return ended(call, 20.0, "the publish runs on")[0]


def _hook(repo: Path, body: str) -> None:
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f"#!/bin/sh\n{body}\n")
    hook.chmod(0o755)


# A retry loop traced by the shell (`set -x`), ending in failure; a loop printing each try, never ending (stopped at
# its time limit); a hook printing the URL it pushes to, with a password the product does not hold.
HOOKS = {
    "traced retries that fail": 'set -x\nfor n in 1 2 3; do\n  false push "https://backup:$HF_TOKEN@backup.invalid/data.git" '
                                '&& break\ndone',
    "retries that never end": 'while :; do echo "retrying the push with --token $HF_TOKEN"; sleep 0.05; done',
    "a URL with its password": f'echo "pushing to https://backup:{PASSWORD}@backup.invalid/data.git"\nexit 1',
}


@pytest.mark.parametrize("body", HOOKS.values(), ids=HOOKS.keys())
def test_a_hook_that_prints_a_credential_is_told_without_it(
        repo: Path, folders: dict[str, Path], caplog: pytest.LogCaptureFixture, body: str) -> None:
    _hook(repo, body)
    with caplog.at_level(logging.WARNING):
        result = _ends(lambda: publish_version(repo, folders, "v2"))
    assert getattr(result, "tag", None) == "v2", result
    told = caplog.text
    assert "post-commit hook" in told and ("exited 1" in told or "did not end within 1 s" in told), told
    assert TOKEN not in told and PASSWORD not in told, told
    assert "backup.invalid" in told or "push" in told, "the hook's last line is no longer told"


def test_a_filter_given_its_token_on_the_command_line_is_named_without_it(
        tmp_path: Path, repo: Path, folders: dict[str, Path]) -> None:
    program = tmp_path / "lfs-upload"
    program.write_text('#!/bin/sh\necho "upload refused, retrying with $*" >&2\nexit 1\n')
    program.chmod(0o755)
    filter_x(repo, clean=f"{program} --token={TOKEN} %f", required="true")
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert str(program) in told and "filter" in told and "nothing was published" in told, told
    assert TOKEN not in told, told
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
