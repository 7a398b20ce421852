"""Where the git directory of a local dataset repository is: its `.git` folder, or the folder a `.git` file points
to (`gitdir: PATH`, as `git init --separate-git-dir` and submodules write it)."""

from __future__ import annotations

from pathlib import Path

from coworkenv.atomic import os_reason
from coworkenv.store._publisher import PublishError

_POINTER = "gitdir:"


def git_dir_of(repo_dir: Path) -> Path:
    """The git directory of `repo_dir` (`repo_dir/.git` when there is none yet); PublishError for a `.git` file that
    points nowhere usable, or for a linked worktree, whose branch main belongs to another folder."""
    dot_git = repo_dir / ".git"
    if not dot_git.is_file():
        return dot_git
    fix = (f"write `{_POINTER} <path of its git directory>` into {dot_git}, or move {repo_dir} aside and publish "
           "into a fresh folder")
    try:
        first = dot_git.read_text(encoding="utf-8", errors="replace").partition("\n")[0].strip()
    except OSError as exc:
        raise PublishError(f"{dot_git} cannot be read ({os_reason(exc)}); {fix}") from None
    if not first.startswith(_POINTER) or not first[len(_POINTER):].strip():
        raise PublishError(f"{dot_git} is a file that does not point to a git directory (its first line should "
                           f"read `{_POINTER} PATH`); {fix}")
    target = repo_dir / first[len(_POINTER):].strip()  # an absolute PATH replaces repo_dir
    if not (target / "HEAD").is_file():
        raise PublishError(f"{dot_git} points to {target}, which is not a git directory (moved or deleted?); {fix}")
    if (target / "commondir").is_file():  # git worktree add: HEAD here, branches shared with the main folder
        common = (target / (target / "commondir").read_text(encoding="utf-8").strip()).resolve()
        main = common.parent if common.name == ".git" else common
        raise PublishError(f"{repo_dir} is a linked worktree (`git worktree add`) of {main}, and versions are "
                           f"published on branch main of a repository's own folder; publish into {main}, or into a "
                           "fresh folder")
    return target.resolve()
