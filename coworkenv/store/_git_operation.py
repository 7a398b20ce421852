"""A git operation someone left half done in the dataset repository: a merge, cherry-pick, revert, rebase or
`git am` stopped on a conflict (or with `--no-commit`), a bisect under way, a `git stash pop` that conflicted.

A publish commits what the folder holds on `main`: over such a state git refused to set the changes aside and the
publish failed with git's empty message ("fix the repository state"), or it took the operation apart (a merge's
changes stashed, a bisect's HEAD moved back to `main`). Only the person who started the operation can finish or
undo it, so a publish names it and stops before touching anything.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

# (the file or folder git keeps in .git while the operation is under way, what it is, the git command that goes on)
_UNDER_WAY = (
    ("rebase-merge", "a rebase", "rebase"),
    ("rebase-apply/applying", "a `git am` (patches being applied)", "am"),
    ("rebase-apply", "a rebase", "rebase"),
    ("MERGE_HEAD", "a merge", "merge"),
    ("CHERRY_PICK_HEAD", "a cherry-pick", "cherry-pick"),
    ("REVERT_HEAD", "a revert", "revert"),
    ("BISECT_LOG", "a bisect", "bisect"),
)


def unfinished_operation_problem(git_dir: Path, repo_dir: Path, unmerged: Callable[[], list[str]]) -> str | None:
    """Why a publish cannot start in `repo_dir` (its .git folder `git_dir`), or None: an operation is under way there
    (`_UNDER_WAY`), or files hold unresolved conflicts (`unmerged()`, their names); what it is and how to finish or
    undo it."""
    conflicts = unmerged()
    shown = ", ".join(conflicts[:3]) + (f" and {len(conflicts) - 3} more" if len(conflicts) > 3 else "")
    held = f", with unresolved conflicts in {shown}" if conflicts else ""
    git = f"git -C {repo_dir}"
    for marker, what, command in _UNDER_WAY:
        if (git_dir / marker).exists():
            if command == "bisect":
                todo = f"end it (`{git} bisect reset`)"
            else:
                todo = (f"finish it (resolve, `{git} add` the files, `{git} {command} --continue`) or undo it "
                        f"(`{git} {command} --abort`)")
            return (f"{repo_dir}: {what} is under way there ({git_dir / marker}){held}; a publish would take its "
                    f"half-done state into a version; {todo}, then publish again; nothing was touched")
    if conflicts:
        return (f"{repo_dir}: files hold unresolved conflicts ({shown}), as a `git stash pop` or `git checkout -m` "
                f"that conflicted leaves them; a publish would take them into a version; resolve them (edit, then "
                f"`{git} add` them) or drop those changes (`{git} checkout HEAD -- {conflicts[0]}` ...), then "
                "publish again; nothing was touched")
    return None
