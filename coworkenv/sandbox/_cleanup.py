"""Removing a run directory once the child is gone, whatever the untrusted code left in it.

The code controls what is in its scratch folder: a tree deeper than Python's recursion limit (shutil.rmtree
recurses once per level and would raise RecursionError out of `run_sandboxed`, leaving the tree behind), paths
longer than PATH_MAX, folders without permissions. This walks the tree with directory descriptors and a stack of
names, so depth costs neither recursion nor path length; it never raises, and logs what it could not remove.
"""

from __future__ import annotations

import contextlib
import logging
import os

_log = logging.getLogger("coworkenv.sandbox")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: str) -> None:
    """Remove the directory `path` and everything below it, however deep; never raises."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        base = os.open(parent, _DIR_FLAGS)
    except OSError as exc:
        _log.warning("cannot remove sandbox run directory %s: %s", path, exc)
        return
    try:
        _remove_below(base, name)
    except OSError as exc:
        _log.warning("cannot remove sandbox run directory %s: %s", path, exc)
    finally:
        os.close(base)


def _remove_below(base: int, name: str) -> None:
    """Remove `name` in the directory `base`, descending one folder at a time (one descriptor open at a time)."""
    current = _open_dir(base, name)
    names: list[str] = []  # the folders from `name` down to `current`
    while True:
        try:
            sub = _unlink_files(current)
        except PermissionError:  # a folder the code made unwritable (possible only when it shared our uid)
            os.chmod(current, 0o700)
            sub = _unlink_files(current)
        if sub is not None:
            deeper = _open_dir(current, sub)
            os.close(current)
            current = deeper
            names.append(sub)
            continue
        if not names:
            os.close(current)
            os.rmdir(name, dir_fd=base)
            return
        up = os.open("..", _DIR_FLAGS, dir_fd=current)  # the child is gone: nothing can move the tree meanwhile
        os.close(current)
        current = up
        os.rmdir(names.pop(), dir_fd=current)


def _open_dir(parent: int, name: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except PermissionError:
        with contextlib.suppress(OSError):
            os.chmod(name, 0o700, dir_fd=parent)
        return os.open(name, _DIR_FLAGS, dir_fd=parent)


def _unlink_files(folder: int) -> str | None:
    """Unlink every non-directory in `folder`; returns the name of one sub-folder left, or None when it is empty."""
    sub = None
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                sub = entry.name
            else:
                os.unlink(entry.name, dir_fd=folder)
    return sub
