"""Git LFS pointer files: what a clone without Git LFS holds in place of each large file (a dataset's Parquet
shards, a checkpoint's weights). Read as data they look damaged; the data is whole, only not fetched."""

from __future__ import annotations

import re
from pathlib import Path

# https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md: a small text file, "version" first, then sorted keys.
_POINTER = re.compile(rb"version https://git-lfs\.github\.com/spec/v1\n(?:.*\n)*?oid sha256:([0-9a-f]{64})\n"
                      rb"(?:.*\n)*?size (\d+)\n")
_MAX_POINTER_BYTES = 1024  # the spec keeps pointers under 1024 bytes


def lfs_pointer_problem(path: Path) -> str | None:
    """If `path` is a Git LFS pointer, one line saying so and how to fetch the data; else None."""
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(_MAX_POINTER_BYTES + 1)
    except OSError:
        return None
    return lfs_pointer_in(path, head)


def lfs_pointer_in(path: Path, data: bytes) -> str | None:
    """`lfs_pointer_problem` of bytes already read from `path` (its whole content or at least its first 1025 bytes)."""
    head = data[:_MAX_POINTER_BYTES + 1]
    found = _POINTER.match(head) if len(head) <= _MAX_POINTER_BYTES else None
    if found is None:
        return None
    oid, size = found[1].decode(), int(found[2])
    return (f"{path}: a Git LFS pointer (object {oid[:12]}, {size} bytes), not the data it stands for: the "
            "repository was cloned without fetching its Git LFS files; run `git lfs install && git lfs pull` in "
            "that repository (or download the file itself) and run again")
