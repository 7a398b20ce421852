"""Fault corpus, what a killed publish leaves in the temp folder: a publish stages the release (every data file and
the card) or a checkpoint's card in a temp folder, and a publish killed there (SIGKILL, an OOM kill, a pipeline's
timeout) could not remove it. On main every such kill left a whole copy of the release in /tmp for good (this
machine's test runs had left 259 of them); now the folder is held while in use, and the next publish removes the
settled ones no live process holds (`coworkenv.held_folders`)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher
from tests.faults.harness import release, run_child
from tests.support.held_folder import held_by_another_process

SIGKILLED = -9
PREFIXES = ("coworkenv-release-", "coworkenv-folder-")


def _staged(temp: Path) -> list[Path]:
    return sorted(p for p in temp.iterdir() if p.name.startswith(PREFIXES))


def _age(*paths: Path) -> None:
    """As if made two minutes ago (past `held_folders.SETTLED_S`)."""
    for path in paths:
        os.utime(path, (time.time() - 120, time.time() - 120))


def _kill_a_publish_while_staged(tmp_path: Path, temp: Path) -> list[Path]:
    """Kill a publish of a release half way through its steps (its git work, the release staged); return what it
    left in `temp`."""
    counted = run_child(["0", "publish", str(tmp_path / "counted"), "v1", "10"], call="tests.faults.kill_points:run",
                        env={"TMPDIR": str(temp)})
    assert counted.returncode == 0, counted.stderr[-800:]
    assert _staged(temp) == [], "an undisturbed publish left its staging folder"
    step = int(counted.stdout.split()[-1]) // 2
    killed = run_child([str(step), "publish", str(tmp_path / "killed"), "v1", "10"],
                       call="tests.faults.kill_points:run", env={"TMPDIR": str(temp)})
    assert killed.returncode == SIGKILLED, (step, killed.stderr[-800:])
    return _staged(temp)


@pytest.fixture()
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    return folder


def test_a_killed_publishs_staging_folder_is_removed_by_the_next_publish(tmp_path: Path, temp: Path) -> None:
    left = _kill_a_publish_while_staged(tmp_path, temp)
    assert any((p / "README.md").exists() or any(p.rglob("*.parquet")) for p in left), "staged nothing"
    _age(*left)
    LocalGitPublisher(tmp_path / "later").publish(release("v1", 10))
    assert _staged(temp) == [], "a later publish left the killed publish's copy of the release"


def test_a_folder_a_live_process_holds_or_not_yet_settled_stays(tmp_path: Path, temp: Path) -> None:
    """A publish running now in another process holds its folder: a second publish must not remove it, nor a folder
    made a moment ago (made before its publish locks it)."""
    live, fresh = temp / "coworkenv-release-live", temp / "coworkenv-release-fresh"
    live.mkdir()
    fresh.mkdir()
    with held_by_another_process(live):
        _age(live)
        LocalGitPublisher(tmp_path / "repo").publish(release("v1", 10))
        assert _staged(temp) == [fresh, live]
    LocalGitPublisher(tmp_path / "repo").publish(release("v2", 10))
    assert _staged(temp) == [fresh], "the folder of a publish that died stays, or one not yet settled went"
    _age(fresh)
    LocalGitPublisher(tmp_path / "repo").publish(release("v3", 10))
    assert _staged(temp) == []


def test_a_killed_checkpoint_publishs_card_folder_is_removed_too(tmp_path: Path, temp: Path) -> None:
    card = temp / "coworkenv-folder-abandoned"
    card.mkdir()
    (card / "README.md").write_text("a card\n")
    _age(card)
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    (checkpoint / "config.json").write_text("{}\n")
    LocalGitPublisher(tmp_path / "models").publish_folder(checkpoint, "v1", "# a checkpoint\n")
    assert _staged(temp) == []
