"""Fault corpus, a command told to write into the folder it reads: `validate S --out S` ("validate in place"),
`validate S --out S/validated`, `curate T --out T` or `T/sft`, `rollout S --out S`, spelled as written, through a
link to the folder, or another spelling of it (`S/.`, relative while the input is absolute).

On main each ran and the damage showed at the next run: `validate S --out S` read its own `accepted.parquet` beside
the specs, so the second run validated each spec twice (acceptance 100 % -> 50 %, "rejected by gate: duplicate 3")
and a `rollout S` then ran every env twice (6 episodes for 3 envs); a second `curate T --out T` and a `curate S`
after `rollout S --out S` stopped on "not a trajectories file ... write trajectories with `coworkenv rollout`", for
a user who had. Now each is refused before any work, naming the option, the folder read and a folder beside it
(`coworkenv/commands.py: output_in_input`). Regression guards: a trajectories folder inside the specs folder (no
reader takes it for specs), a single file's folder, and a sibling whose name begins like the input's are taken.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import refused, snapshot, specs_and_trajectories


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return specs_and_trajectories(tmp_path_factory.mktemp("inputs"))


REFUSED = {
    "validate-in-place": (["validate", "{specs}", "--out", "{specs}"], "{specs}-validated"),
    "validate-into-a-subfolder": (["validate", "{specs}", "--out", "{specs}/validated"], "{specs}-validated"),
    "validate-through-a-link": (["validate", "{specs}", "--out", "{link}"], "{specs}-validated"),
    "validate-dot": (["validate", "{specs}", "--out", "{specs}/."], "{specs}-validated"),
    "curate-in-place": (["curate", "{traj}", "--out", "{traj}"], "{traj}-sft"),
    "curate-into-a-subfolder": (["curate", "{traj}", "--out={traj}/sft"], "{traj}-sft"),
    "rollout-in-place": (["rollout", "{specs}", "--out", "{specs}"], "{specs}-trajectories"),
    "rollout-relative": (["rollout", "{specs}", "--out", "{relative}"], "{specs}-trajectories"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_an_output_folder_that_is_or_is_inside_the_input_folder_is_refused_before_any_work(
        made: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    args, beside = REFUSED[case]
    (tmp_path / "link").symlink_to(made["specs"], target_is_directory=True)
    monkeypatch.chdir(made["specs"].parent)
    names = {"{specs}": str(made["specs"]), "{traj}": str(made["traj"]), "{link}": str(tmp_path / "link"),
             "{relative}": os.path.join(".", made["specs"].name)}
    before = {name: snapshot(made[name]) for name in ("specs", "traj")}

    def filled(text: str) -> str:
        for key, value in names.items():
            text = text.replace(key, value)
        return text

    read = made["traj"] if args[0] == "curate" else made["specs"]
    refused([filled(a) for a in args], "--out", f"{read}, the folder this command reads",
            "would read this run's output as its input", f"--out {filled(beside)}")
    assert {name: snapshot(made[name]) for name in ("specs", "traj")} == before


def test_guard_a_trajectories_folder_inside_the_specs_folder_is_taken(made: dict[str, Path], tmp_path: Path) -> None:
    """Regression guard: `rollout S --out S/trajectories` worked on main and still does; a later `rollout S` reads
    the same envs (the spec reader leaves trajectories files out)."""
    specs = Path(shutil.copytree(made["specs"], tmp_path / "specs"))
    first = CliRunner().invoke(app, ["rollout", str(specs), "--out", str(specs / "trajectories")])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, ["rollout", str(specs), "--out", str(tmp_path / "again")])
    assert again.exit_code == 0, again.output
    assert again.output.count("2 episodes in 2 envs") == first.output.count("2 episodes in 2 envs") == 1, again.output


@pytest.mark.parametrize("case", ["a-file's-folder", "a-sibling-named-alike"])
def test_guard_an_output_beside_the_input_is_taken(made: dict[str, Path], tmp_path: Path, case: str) -> None:
    """Regression guards: `validate S/x.parquet --out S` reads one file, not the folder; `--out S-v` is no folder
    inside `S` though its name begins like it."""
    specs = Path(shutil.copytree(made["specs"], tmp_path / "specs"))
    source = next(specs.glob("*.parquet")) if case == "a-file's-folder" else specs
    out = specs if case == "a-file's-folder" else tmp_path / "specs-v"
    result = CliRunner().invoke(app, ["validate", str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "accepted.parquet").is_file()
