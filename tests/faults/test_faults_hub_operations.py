"""Fault corpus, the local dataset repository with a git operation someone left half done: a merge, cherry-pick,
revert or rebase stopped on a conflict, a merge stopped with `--no-commit`, a bisect under way, a `git stash pop`
that conflicted (no operation, conflicted files only).

On main (measured): every conflicted state failed the publish with "`git stash push ...` failed in R (exit 1): ;
fix the repository state" (git's empty message: what state, what to do?); a `merge --no-commit` was taken apart
under its user (its changes put in git's stash, the merge itself gone) and a bisect lost its place (HEAD moved back
to `main` from the commit being tested, the bisect's log left), both published without a word. Now a publish finds the operation (its file in .git) or the conflicted files first, names
them and the git commands that finish or undo it, and stops before touching anything
(`coworkenv/store/_git_operation.py`). Regression guard: once the operation is undone the publish lands on `main`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot


def _git(repo: Path, *args: str, check: bool = True) -> str:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="someone", GIT_AUTHOR_EMAIL="someone@localhost", GIT_COMMITTER_NAME="someone",
               GIT_COMMITTER_EMAIL="someone@localhost", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=check)
    return done.stdout.strip()


def _card_edited_on_two_branches(repo: Path) -> None:
    """`other` and `main` each change the card's first line their own way (a conflict when brought together)."""
    _git(repo, "checkout", "--quiet", "-b", "other")
    (repo / "README.md").write_text("someone's card\n")
    _git(repo, "commit", "--quiet", "-am", "someone's card")
    _git(repo, "checkout", "--quiet", "main")
    (repo / "README.md").write_text("another card\n")
    _git(repo, "commit", "--quiet", "-am", "another card")


def _left(repo: Path, state: str) -> tuple[str, ...]:
    """Leave `state` in `repo`; the words the refusal must hold."""
    if state == "bisect":
        _git(repo, "bisect", "start", "main", "v1")
        return ("a bisect is under way", "bisect reset")
    if state == "merge --no-commit":
        _git(repo, "checkout", "--quiet", "-b", "other", "v1")
        (repo / "notes.md").write_text("someone's notes\n")
        _git(repo, "add", "notes.md")
        _git(repo, "commit", "--quiet", "-m", "notes")
        _git(repo, "checkout", "--quiet", "main")
        _git(repo, "merge", "--no-commit", "--no-ff", "other")
        return ("a merge is under way", "merge --abort")
    _card_edited_on_two_branches(repo)
    if state == "stash pop conflict":
        (repo / "README.md").write_text("a third card\n")
        _git(repo, "stash", "push", "--quiet")
        (repo / "README.md").write_text("a fourth card\n")
        _git(repo, "commit", "--quiet", "-am", "a fourth card")
        _git(repo, "stash", "pop", check=False)
        return ("unresolved conflicts (README.md)", "checkout HEAD -- README.md")
    command = {"merge conflict": ["merge", "other"], "cherry-pick conflict": ["cherry-pick", "other"],
               "revert conflict": ["revert", "--no-edit", "HEAD~1"], "rebase conflict": ["rebase", "main", "other"]}
    _git(repo, *command[state], check=False)
    name = state.removesuffix(" conflict")
    return (f"a {name} is under way", "unresolved conflicts in README.md", f"{name} --abort", f"{name} --continue")


STATES = ["merge conflict", "cherry-pick conflict", "revert conflict", "rebase conflict", "merge --no-commit",
          "bisect", "stash pop conflict"]


@pytest.mark.parametrize("state", STATES)
def test_a_publish_over_a_half_done_git_operation_names_it_and_touches_nothing(tmp_path: Path, state: str) -> None:
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    publisher.publish(release("v2"))
    needles = _left(repo, state)
    head, status = _git(repo, "rev-parse", "HEAD"), _git(repo, "status", "--porcelain")
    before = snapshot(repo)
    with pytest.raises(PublishError) as raised:
        publisher.publish(release("v3"))
    for needle in (*needles, "nothing was touched", str(repo)):
        assert needle in str(raised.value), str(raised.value)
    assert (_git(repo, "rev-parse", "HEAD"), _git(repo, "status", "--porcelain")) == (head, status)
    assert snapshot(repo) == before and "v3" not in _git(repo, "tag")


def test_guard_once_the_merge_is_undone_the_publish_lands_on_main(tmp_path: Path) -> None:
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    _card_edited_on_two_branches(repo)
    _git(repo, "merge", "other", check=False)
    with pytest.raises(PublishError):
        publisher.publish(release("v2"))
    _git(repo, "merge", "--abort")
    publisher.publish(release("v2"))
    assert _git(repo, "rev-parse", "main") == _git(repo, "rev-parse", "v2^{commit}")
    assert _git(repo, "rev-list", "--parents", "-n", "1", "main").count(" ") == 1  # one parent: no merge taken in
