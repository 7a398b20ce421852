"""Fault corpus, a checkpoint folder that is a symbolic link to another disk (`ln -s /mnt/big/pocketworker
data/checkpoints/pocketworker`, a dataset volume mounted elsewhere).

`train_sft` and `train_rl` resolve their folder, so a training stages and renames on the link's target; but loading
the checkpoint by the link after a stop between the save's two renames (`coworkenv eval --model LINK`, a chat
server) did not put the old checkpoint back: the link pointed at nothing and the checkpoint stayed hidden in
`.<name>.previous`. The placing helpers themselves renamed the link (the new checkpoint landed on the small disk in
its place, then "Cannot call rmtree on a symbolic link", at every later save): any caller that did not resolve the
path first met that. Both now work on the link's target, and the link stays."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import run_child
from trainers.checkpoint_files import checkpoint_staging, replace_dir, restore_interrupted_replace


def _train(out_dir: Path, weights: str) -> None:
    """What `train_sft` and `train_rl` do with a finished checkpoint."""
    with checkpoint_staging(out_dir) as staging:  # made, empty and locked
        (staging / "model.safetensors").write_text(weights)
        replace_dir(staging, out_dir)


def _absolute(link: Path, target: Path) -> None:
    link.symlink_to(target)


def _relative(link: Path, target: Path) -> None:
    link.symlink_to(os.path.relpath(target, link.parent))


def _not_made_yet(link: Path, target: Path) -> None:
    target.rmdir()  # a link made before the first training: its target does not exist yet
    link.symlink_to(target)


LINKS: dict[str, Callable[[Path, Path], None]] = {"absolute link": _absolute, "relative link": _relative,
                                                  "link to a folder not made yet": _not_made_yet}


@pytest.mark.parametrize("link", sorted(LINKS))
def test_trainings_into_a_linked_checkpoint_folder_write_through_the_link(tmp_path: Path, link: str) -> None:
    big, small = tmp_path / "big", tmp_path / "small"
    target, out_dir = big / "pocketworker", small / "checkpoints" / "pocketworker"
    target.mkdir(parents=True)
    out_dir.parent.mkdir(parents=True)
    LINKS[link](out_dir, target)
    for weights in ("first", "second"):
        _train(out_dir, weights)
        assert out_dir.is_symlink() and (target / "model.safetensors").read_text() == weights
    assert sorted(p.name for p in out_dir.parent.iterdir()) == ["pocketworker"]  # nothing on the small disk
    assert sorted(p.name for p in big.iterdir()) == ["pocketworker"]  # no .previous nor .partial left


def test_a_stubbed_sft_training_into_a_linked_folder_twice_succeeds(tmp_path: Path) -> None:
    # Regression guard (passed on main: train_sft resolves its folder): the trainer's own code path, model work
    # stubbed (tests/faults/scenarios.py train_sft_beside).
    target, out_dir = tmp_path / "big" / "ckpt", tmp_path / "small" / "ckpt"
    target.mkdir(parents=True)
    out_dir.parent.mkdir()
    out_dir.symlink_to(target)
    for tag in ("first", "second"):
        done = run_child([str(out_dir), tag, str(tmp_path / f"started-{tag}"), "-"],
                         call="tests.faults.scenarios:train_sft_beside", preloaded=True)
        assert done.returncode == 0, done.stderr[-2000:]
        assert out_dir.is_symlink() and (target / "part-2.bin").read_text() == tag
    assert sorted(p.name for p in out_dir.parent.iterdir()) == ["ckpt"]


@pytest.mark.parametrize("link", ["absolute link", "relative link"])
def test_loading_by_the_link_after_a_stop_between_the_renames_puts_the_checkpoint_back(tmp_path: Path,
                                                                                       link: str) -> None:
    big, small = tmp_path / "big", tmp_path / "small"
    target, out_dir = big / "pocketworker", small / "pocketworker"
    target.mkdir(parents=True)
    small.mkdir()
    LINKS[link](out_dir, target)
    (target / "config.json").write_text('{"marker": "old"}')
    # A training through the link (train_sft resolves it) stopped after moving the old checkpoint aside.
    os.replace(target, big / ".pocketworker.previous")
    (big / ".pocketworker.partial").mkdir()
    assert restore_interrupted_replace(out_dir)  # what load_checkpoint does for a folder it cannot find
    assert out_dir.is_symlink() and (out_dir / "config.json").read_text() == '{"marker": "old"}'


def test_a_checkpoint_loaded_by_the_link_after_a_stop_between_the_renames_is_read_from_its_place(
        tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from trainers.local_backend import load_checkpoint

    target, out_dir = tmp_path / "big" / "sft", tmp_path / "sft"
    (tmp_path / "big" / ".sft.previous").mkdir(parents=True)
    (tmp_path / "big" / ".sft.previous" / "config.json").write_text('{"marker": "old"}')
    out_dir.symlink_to(target)
    with pytest.raises(ValueError, match="holds no weights"):  # a marker config, no weights; what matters is that it was found
        load_checkpoint(out_dir)
    assert (target / "config.json").read_text() == '{"marker": "old"}'
