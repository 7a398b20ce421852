"""A stop between the two renames that put a trained checkpoint in place (`trainers.checkpoint_files.replace_dir`:
the old folder aside, the new one in) must not hide the user's checkpoint: the next save or load puts it back."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainers.checkpoint_files import replace_dir, restore_interrupted_replace


def _checkpoint(folder: Path, marker: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(f'{{"marker": "{marker}"}}')
    return folder


def _stopped_between_renames(tmp_path: Path) -> Path:
    """The state a kill leaves after `os.replace(out, previous)` and before `os.replace(staging, out)`."""
    out = tmp_path / "sft"
    _checkpoint(tmp_path / ".sft.previous", "old")
    _checkpoint(tmp_path / ".sft.staging", "new")
    return out


def test_the_next_save_keeps_nothing_hidden_and_puts_the_new_checkpoint_in(tmp_path: Path) -> None:
    out = _stopped_between_renames(tmp_path)
    replace_dir(tmp_path / ".sft.staging", out)
    assert (out / "config.json").read_text() == '{"marker": "new"}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sft"]


def test_loading_the_checkpoint_puts_the_old_one_back(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from trainers.local_backend import load_checkpoint

    out = _stopped_between_renames(tmp_path)
    with pytest.raises(ValueError, match="holds no weights"):  # a marker config, no weights; what matters is where it is read from
        load_checkpoint(out)
    assert (out / "config.json").read_text() == '{"marker": "old"}'
    assert not (tmp_path / ".sft.previous").exists()


def test_nothing_is_restored_over_an_existing_checkpoint_or_from_nothing(tmp_path: Path) -> None:
    out = _checkpoint(tmp_path / "sft", "current")
    _checkpoint(tmp_path / ".sft.previous", "old")
    assert not restore_interrupted_replace(out)
    assert (out / "config.json").read_text() == '{"marker": "current"}'
    assert not restore_interrupted_replace(tmp_path / "none")
