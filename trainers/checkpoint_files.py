"""Putting a trained checkpoint folder in place without ever losing the previous one."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from coworkenv.atomic import WriteError, folder_lock, os_reason, path_advice

__all__ = ["CheckpointPlaceError", "checkpoint_place", "checkpoint_staging", "replace_dir",
           "restore_interrupted_replace"]


def _previous_of(out_dir: Path) -> Path:
    return out_dir.with_name(f".{out_dir.name}.previous")


def checkpoint_place(out_dir: Path) -> Path:
    """Where a checkpoint for `out_dir` really lives: the target when `out_dir` is a symbolic link (a checkpoint
    folder linked to a bigger disk), so the staging folder, the renames and the lock are on that disk and the link
    stays. Renaming the link itself put the new checkpoint on the small disk, moved the link aside and then failed
    to delete it, then and in every later training ("Cannot call rmtree on a symbolic link")."""
    return out_dir.resolve() if out_dir.is_symlink() else out_dir


def restore_interrupted_replace(out_dir: Path) -> bool:
    """Put back the checkpoint a `replace_dir` stopped between its two renames had moved aside (`out_dir` gone, the
    old one at `.<name>.previous`); True when it did. Without this, a kill at that moment hid the user's checkpoint."""
    out_dir = checkpoint_place(out_dir)
    previous = _previous_of(out_dir)
    if out_dir.exists() or out_dir.is_symlink() or not previous.is_dir():
        return False
    os.replace(previous, out_dir)
    return True


@contextmanager
def checkpoint_staging(out_dir: Path) -> Iterator[Path]:
    """The folder a new checkpoint for `out_dir` is written in (`.<name>.partial` beside it), emptied of what an
    interrupted run left, with the folder holding both locked for the block.

    Two trainings into one folder shared that staging folder: the second deleted the first's files as leftovers, or
    mixed its own in, and the mixture was put in place as one checkpoint. The second now waits for the first. In a
    distributed run only the main process (RANK 0) locks and empties it; the others write where it says.
    """
    out_dir = checkpoint_place(out_dir)
    staging = out_dir.with_name(f".{out_dir.name}.partial")
    if os.environ.get("RANK", "0") != "0":
        yield staging
        return
    waiting = f"another training is putting a checkpoint in {out_dir.parent}; waiting for it to end (stop with Ctrl-C)"
    with folder_lock(out_dir.parent, waiting):
        if staging.exists():
            shutil.rmtree(staging)  # a run interrupted before its checkpoint was whole: no live run holds it now
        yield staging


def replace_dir(staging: Path, out_dir: Path) -> None:
    """Move the finished checkpoint into place; a previous one at `out_dir` is replaced only once this one is whole.

    Two renames: the old checkpoint aside, the new one in. A stop between them is repaired by the next call (or by
    `restore_interrupted_replace`, which loading a checkpoint runs), so the old checkpoint is never lost."""
    out_dir = checkpoint_place(out_dir)
    restore_interrupted_replace(out_dir)
    previous = _previous_of(out_dir)
    if previous.exists():
        shutil.rmtree(previous)
    try:
        if out_dir.exists():
            os.replace(out_dir, previous)
        os.replace(staging, out_dir)
    except OSError as error:  # e.g. EXDEV: `out_dir` is a mount point, or a folder of a container image's layer
        restore_interrupted_replace(out_dir)
        raise CheckpointPlaceError(staging, out_dir, error) from None
    if previous.exists():
        shutil.rmtree(previous)


class CheckpointPlaceError(WriteError):
    """A trained checkpoint that could not be moved into place: the message says where it is, whole, and why."""

    def __init__(self, staging: Path, out_dir: Path, cause: OSError) -> None:
        super().__init__(out_dir, cause)
        self.staging = staging
        self.message = (f"cannot put the new checkpoint in place at {out_dir}: {os_reason(cause)}; "
                        f"{path_advice(out_dir, cause)}. The new checkpoint is whole in {staging} (the next training "
                        f"run into {out_dir} starts by deleting it: move it away first to keep it); the previous "
                        "one is unchanged")
