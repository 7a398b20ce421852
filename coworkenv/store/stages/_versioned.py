"""Whether files missing from a dataset folder are held by the git version checked out around it: the local dataset
repository a publish writes, or a `git clone` of a Hub dataset. A shard deleted from such a folder by hand was told as
"an earlier write was interrupted; curate again", where the version keeps the file and git puts it back in a second.

Only asked on the way to a refusal (a git command or three); no git, no repository, a file the version does not hold:
None, and the refusal says what it said before."""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class HeldByVersion:
    """Files missing from a folder that the checked-out version of the repository `top` holds, as `paths` in it."""

    top: Path
    version: str  # the version's tag, else its commit's short hash
    paths: tuple[str, ...]

    def put_back(self) -> str:
        """The command that puts the files back as the version has them."""
        return shlex.join(["git", "-C", str(self.top), "checkout", self.version, "--", *self.paths])


def held_by_version(folder: Path, names: list[str]) -> HeldByVersion | None:
    """The version that holds every one of the files `names` of `folder` (missing from it), or None."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               GIT_OPTIONAL_LOCKS="0")

    def git(*args: str, where: Path) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(where), *args], env=env, capture_output=True, check=False,
                                  timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.decode(errors="surrogateescape") if done.returncode == 0 else None

    try:
        real = Path(folder).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    found = git("rev-parse", "--show-toplevel", where=real)
    if not found or not found.strip():
        return None
    top = Path(found.strip())
    try:
        paths = tuple((real / name).relative_to(top.resolve()).as_posix() for name in names)
    except (OSError, ValueError):
        return None
    listed = git("ls-tree", "-z", "--name-only", "--full-tree", "HEAD", "--", *paths, where=top)
    if listed is None or set(paths) - set(listed.split("\0")):
        return None
    tags = sorted((git("tag", "--points-at", "HEAD", where=top) or "").split())
    version = tags[0] if tags else (git("rev-parse", "--short", "HEAD", where=top) or "HEAD").strip()
    return HeldByVersion(top, version, paths)
