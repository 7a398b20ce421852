"""Fault corpus, a local dataset repository with git hooks of its user's: a post-commit hook (a push to a backup, a
notification) ran after `git commit`, before the tag, until faults49's one-transaction publish (`commit-tree`, then
the branch and the tag in one `update-ref`), which runs none; a "Back to" commit still went through `git commit` and
ran it, with the repository's prepare-commit-msg hook free to rewrite its message. So a user's hook ran for some
publishes and not others, and, when it ran, never saw the version's tag.

Now a publish runs none of the repository's hooks while it writes (its commit and tag are one unattended transaction,
which a hook must not stop or rewrite half way), and runs the post-commit hook once the version is committed and
tagged (a "Back to" commit too); a hook that fails is told as a warning: the version is published, what the hook does
was not done."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher
from tests.test_store_hf_hub import _release


def _hook(repo: Path, name: str, body: str) -> None:
    hook = repo / ".git" / "hooks" / name
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f"#!/bin/sh\n{body}\n")
    os.chmod(hook, 0o755)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def test_the_post_commit_hook_runs_once_per_publish_after_the_version_is_tagged(tmp_path: Path) -> None:
    first, second = _release(train_rows=3, shard_rows=2), _release(train_rows=5, shard_rows=2)
    repo, seen = tmp_path / "repo", tmp_path / "seen.log"
    publisher = LocalGitPublisher(repo)
    publisher.publish(first)
    _hook(repo, "post-commit", f'echo "$(git log -1 --format=%s) [$(git tag --points-at HEAD)]" >> "{seen}"')
    _hook(repo, "prepare-commit-msg", 'echo "rewritten by a hook" > "$1"')
    for release in (second, first):  # the last one: back to the first version's files
        publisher.publish(release)
    assert seen.read_text().splitlines() == [f"Dataset version {second.version} [{second.version}]",
                                             f"Back to {first.version} []"]
    assert _git(repo, "log", "-1", "--format=%s") == f"Back to {first.version}\n"


def test_a_failing_post_commit_hook_is_a_warning_and_the_version_stays_published(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first, second = _release(train_rows=3, shard_rows=2), _release(train_rows=5, shard_rows=2)
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish(first)
    _hook(repo, "post-commit", 'echo "backup: remote unreachable" >&2; exit 3')
    with caplog.at_level(logging.WARNING):
        result = publisher.publish(second)
    assert publisher.published_versions() == [first.version, second.version] and result.tag == second.version
    assert "post-commit hook" in caplog.text and "exited 3" in caplog.text
    assert "backup: remote unreachable" in caplog.text and f"{second.version} is published" in caplog.text
