"""Fault corpus, a checkpoint file rewritten in place while it loads, under the date it had: `cp -p` or
`rsync -t --inplace` from a copy that carries the file's date (a backup, a copy made with `cp -p`), `touch -r` after an
edit, or two writes within one tick of a file system whose dates count whole seconds (FAT, exFAT, some network
shares) or coarse ticks. A loader (`train rl` from a local start, the offline vLLM backend) takes each file's version
before it checks the hashes and compares it once the weights are loaded: on main the version was (inode, size,
modification time), all three the same after such a rewrite of a file of the same size, so the weights loaded were
other bytes than those checked, without a word. The version now holds the change time too, which every write sets
and no tool can set back (`os.utime`, `touch`, `cp -p` set the modification time only), as the trajectory
readers' version does.

Every case calls `coworkenv.checkpoint_manifest` in this process on a folder of a few small files."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.checkpoint_manifest import file_versions, unchanged_since_checked

CHANGED = r"model\.safetensors changed while the checkpoint loaded.*load it again"


def _checkpoint(folder: Path) -> Path:
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"A" * 4096)
    (folder / "config.json").write_text('{"layers": 2}')
    return folder


def _same_date_as(path: Path, before: os.stat_result) -> None:
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _rewritten_in_place_then_dated_back(weights: Path) -> None:
    """An edit in place of the same size, its date then set back (`touch -r`, an editor keeping dates)."""
    before = weights.stat()
    with open(weights, "r+b") as file:
        file.write(b"B" * 4096)
    _same_date_as(weights, before)


def _copied_over_with_its_date(weights: Path) -> None:
    """`cp -p other weights` over it: the same inode, other bytes, the copy's date, here the file's own (a copy
    made with `cp -p` from the same save, trained on since, or a backup of it)."""
    other = weights.with_name("other.bin")
    other.write_bytes(b"C" * 4096)
    _same_date_as(other, weights.stat())
    shutil.copy2(other, weights)  # opens the file for writing (same inode), then copies the date
    other.unlink()


def _written_twice_in_one_tick(weights: Path) -> None:
    """A second write within the date's tick: what a file system counting whole seconds records for two writes
    in one second (made so here by setting the date the first write left)."""
    before = weights.stat()
    weights.write_bytes(b"D" * 4096)
    _same_date_as(weights, before)


@pytest.mark.parametrize("rewrite", [_rewritten_in_place_then_dated_back, _copied_over_with_its_date,
                                     _written_twice_in_one_tick], ids=["edited-dated-back", "cp-p-over", "one-tick"])
def test_a_weights_file_rewritten_under_its_own_date_while_it_loads_is_named(tmp_path: Path,
                                                                           rewrite: Callable[[Path], None]) -> None:
    folder = _checkpoint(tmp_path / "ckpt")
    checked = file_versions(folder)
    dated = (folder / "model.safetensors").stat().st_mtime_ns
    time.sleep(0.02)  # past a coarse tick of the change time (a loader takes seconds)
    rewrite(folder / "model.safetensors")
    assert (folder / "model.safetensors").stat().st_mtime_ns == dated, "the case's premise: the date is the same"
    changed = unchanged_since_checked(folder, checked)
    assert changed is not None, "weights rewritten under their own date while they loaded passed as unchanged"
    assert re.search(CHANGED, changed), changed


def test_a_checkpoint_only_read_while_it_loads_passes(tmp_path: Path) -> None:
    """Reading the files (their access times may move), mapping them, listing the folder: no version changes."""
    folder = _checkpoint(tmp_path / "ckpt")
    checked = file_versions(folder)
    time.sleep(0.02)
    for path in folder.iterdir():
        path.read_bytes()
    assert unchanged_since_checked(folder, checked) is None
