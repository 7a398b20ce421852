"""What a clean clone gets: no links or paths that only resolve on the machine a change was made on."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tracked() -> list[tuple[str, str]]:
    """(mode, path) of every tracked file; skipped outside a git checkout (e.g. an sdist)."""
    try:
        out = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    entries = []
    for entry in out.decode().split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            entries.append((meta.split()[0], path))
    return entries


def test_no_tracked_link_points_outside_the_repository() -> None:
    outside = []
    for mode, path in _tracked():
        if mode == "120000":
            target = os.readlink(ROOT / path) if (ROOT / path).is_symlink() else ""
            resolved = (ROOT / path).parent / target
            if os.path.isabs(target) or ROOT not in Path(os.path.normpath(resolved)).parents:
                outside.append(f"{path} -> {target}")
    assert not outside, f"tracked links that a clean clone cannot resolve: {outside} (git rm --cached them)"


def test_the_virtual_environment_is_never_tracked() -> None:
    tracked = [path for _, path in _tracked() if path == ".venv" or path.startswith(".venv/")]
    assert not tracked, f"{tracked} is tracked: `git rm --cached` it (.gitignore ignores .venv, folder or link)"
