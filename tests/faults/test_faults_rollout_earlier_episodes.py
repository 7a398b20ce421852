"""Fault corpus, `coworkenv rollout SPECS --out T` run again into the folder of an earlier rollout after the specs
changed: a spec removed (a broken one deleted), edited by hand (a check fixed, a user turn reworded: a spec's id is
its content's hash, so the edited spec is another env), the specs folder replaced by another set; the earlier run's
file moved into a subfolder of T to "keep it", T given through a link.

On main each second rollout ran and added its file beside the earlier one (`trajectories-<hash>.parquet`, by design:
several teachers into one folder), and `curate T` then took both: the episodes of a spec that no longer exists,
scored by its old checks, went into the SFT shards with this run's, without a word. Now the rollout is refused
before any episode runs, naming the earlier files, how many episodes of how many envs the specs do not hold, and
what to do (a new folder, move the files away, or `--add` to keep them on purpose). Regression guards: the same
specs rolled out again (the same file), another seed over the same specs (a second teacher's file beside the first)
are taken.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names
from tests.faults.harness import refused, snapshot, spec_folder


def _rollout(specs: Path | str, out: Path | str, *more: str) -> None:
    result = CliRunner().invoke(app, ["rollout", str(specs), "--out", str(out), *more])
    assert result.exit_code == 0, result.output


def _edit_first_user_turn(specs: Path) -> None:
    path = sorted(specs.glob("*.json"))[0]
    spec = json.loads(path.read_text())
    spec["turns"][0]["content"] += " Thanks!"
    path.write_text(json.dumps(spec))


def _edit_a_check(specs: Path) -> None:
    path = sorted(specs.glob("*.json"))[-1]
    spec = json.loads(path.read_text())
    spec["checks"][0]["description"] = spec["checks"][0].get("description", "") + " (fixed by hand)"
    path.write_text(json.dumps(spec))


CASES = ["a spec removed", "a user turn reworded", "a check edited", "another spec set",
         "the earlier file moved into a subfolder", "through a link"]


@pytest.mark.parametrize("case", CASES)
def test_a_rollout_into_a_folder_holding_episodes_of_other_envs_is_refused_before_any_episode(
        tmp_path: Path, case: str) -> None:
    names = example_names()
    specs = spec_folder(tmp_path / "specs", names[:3])
    out: Path | str = tmp_path / "traj"
    _rollout(specs, out)
    given = specs
    if case == "a spec removed":
        sorted(specs.glob("*.json"))[1].unlink()
    elif case == "a user turn reworded":
        _edit_first_user_turn(specs)
    elif case == "a check edited":
        _edit_a_check(specs)
    elif case == "another spec set":
        given = spec_folder(tmp_path / "other", names[3:5])
    elif case == "the earlier file moved into a subfolder":
        (tmp_path / "traj" / "kept").mkdir()
        for file in (tmp_path / "traj").glob("trajectories-*.parquet"):
            file.rename(tmp_path / "traj" / "kept" / file.name)
        given = spec_folder(tmp_path / "other", names[3:5])
    elif case == "through a link":
        sorted(specs.glob("*.json"))[0].unlink()
        (tmp_path / "latest").symlink_to(tmp_path / "traj", target_is_directory=True)
        out = tmp_path / "latest"
    before = snapshot(tmp_path / "traj")
    refused(["rollout", str(given), "--out", str(out)], f"--out {out} already holds", "episodes of",
            "the specs given do not hold", "trajectories-", "--add")
    assert snapshot(tmp_path / "traj") == before


@pytest.mark.parametrize("case", ["the same specs again", "another seed over the same specs"])
def test_guard_a_rollout_of_the_same_specs_into_their_folder_is_taken(tmp_path: Path, case: str) -> None:
    """Regression guards (held on main): the same run writes the same file; a second teacher over the same specs
    adds its own."""
    specs = spec_folder(tmp_path / "specs", example_names()[:2])
    _rollout(specs, tmp_path / "traj")
    more = ("--seed", "1", "--k", "2") if case == "another seed over the same specs" else ()
    _rollout(os.fspath(specs), tmp_path / "traj", *more)
    files = sorted((tmp_path / "traj").glob("trajectories-*.parquet"))
    assert len(files) == (2 if more else 1), files
    shutil.rmtree(specs)
