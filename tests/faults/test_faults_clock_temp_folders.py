"""Fault corpus, temp folders dated in the future: a publish's staging folder (a whole copy of a release) or a
sandbox call's run directory left by a process killed before it marked the folder held, on a machine whose clock was
then set back (NTP stepping a clock that ran ahead, a VM restored from a snapshot, a clock set back by hand), or a
temp folder copied back with its dates (`cp -p`, a backup restored from a machine whose clock ran ahead). Such a
folder is dated after "now". `held_folders.settled` took a folder for settled once `now - mtime >= SETTLED_S`,
never true of a folder dated in the future: on main it stayed, a copy of the release's weights each, until the clock
caught up (an hour, a day, a year). A folder dated further in the future than `SETTLED_S` was not made in the
instant before its holder locks it (the one thing settling waits for), so it is settled too; a live process's lock
still keeps its folder, whatever its date.

Every case calls `held_folders` in this process on folders of a temp folder of its own; a lock taken through another
open file description of the folder stands for the live holder (flock locks conflict across descriptions)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from coworkenv.held_folders import SETTLED_S, hold, remove_abandoned, settled
from coworkenv.sandbox._leftovers import RUN_DIR_PREFIX

PREFIX = "coworkenv-release-"
HOUR, DAY, YEAR = 3600.0, 86400.0, 365 * 86400.0


def _folder(temp: Path, name: str, dated: float, content: bool = True) -> Path:
    """A folder `name` in `temp` (with a file, as a staging folder holds), dated `dated` s from now."""
    folder = temp / name
    folder.mkdir()
    if content:
        (folder / "weights.safetensors").write_bytes(b"w" * 64)
    when = time.time() + dated
    os.utime(folder, (when, when))
    return folder


@pytest.mark.parametrize("ahead", [2 * SETTLED_S, HOUR, DAY, YEAR], ids=["2-minutes", "hour", "day", "year"])
@pytest.mark.parametrize("prefix", [PREFIX, RUN_DIR_PREFIX], ids=["publish-staging", "sandbox-run-dir"])
def test_a_folder_dated_in_the_future_no_one_holds_is_removed(tmp_path: Path, prefix: str, ahead: float) -> None:
    left = _folder(tmp_path, f"{prefix}killed", ahead)
    assert str(left) in settled(str(tmp_path), prefix), f"a folder dated {ahead:.0f} s ahead is never settled"
    assert remove_abandoned(str(tmp_path), prefix) == [str(left)]
    assert not left.exists(), "a killed process's folder dated in the future stayed"


def test_a_folder_dated_in_the_future_a_live_process_holds_stays(tmp_path: Path) -> None:
    live = _folder(tmp_path, f"{PREFIX}live", DAY)
    held = hold(str(live))
    assert held is not None, "this file system takes no locks"
    try:
        assert remove_abandoned(str(tmp_path), PREFIX) == []
        assert (live / "weights.safetensors").read_bytes() == b"w" * 64, "a live process's folder lost its files"
    finally:
        os.close(held)


@pytest.mark.parametrize("dated", [0.0, -SETTLED_S / 4, SETTLED_S / 4], ids=["now", "just-before", "just-ahead"])
def test_a_folder_made_just_now_not_yet_held_stays(tmp_path: Path, dated: float) -> None:
    """A folder is made before its maker locks it: one dated within `SETTLED_S` of now, either side (a clock a little
    off between the stat and the `time()`), may be a live maker's and waits."""
    fresh = _folder(tmp_path, f"{PREFIX}fresh", dated, content=False)
    assert remove_abandoned(str(tmp_path), PREFIX) == []
    assert fresh.is_dir()
