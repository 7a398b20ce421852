"""Fault corpus, a path on the command line holding `$HOME`, `${HOME}` or another variable that no shell expanded:
written in single quotes (`--out '$HOME/specs'`, copied from a doc that quotes it), or given by a launcher that runs
the command without a shell (Docker's exec-form `CMD ["coworkenv", "synth", "--out", "$HOME/specs"]`, a Kubernetes
`args:` list, an IDE's launch configuration, a `subprocess` list), which keep it as written.

On main each was taken as a name: `synth --out '$HOME/specs'` wrote into a folder named `$HOME` under the current
folder and said "wrote 1 specs to $HOME/specs/..." (the user found nothing in the home folder), `serve --token-file`
wrote the harness token there, a reader said "no such file" of a folder that is in the home folder. Now each is
refused before any work, naming the argument, the variable and the path meant (`coworkenv/unexpanded_paths.py`:
`unexpanded_variable`, used by the CLI's group for every argument); a path that exists as written is taken."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.faults.harness import ROOT, home_beside_here, refused, spec_folder, stage_inputs

SYNTH = ["synth", "--taxonomy", str(ROOT / "taxonomy"), "-c", "ticket_triage_update", "--n", "1"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own (HOME), and the current folder beside it, empty: a folder named `$HOME` would show."""
    monkeypatch.delenv("COWORKENV_UNSET_FOLDER", raising=False)
    monkeypatch.setenv("COWORKENV_HARNESS_TOKEN", "a-harness-token-of-the-test-0123456789")
    return home_beside_here(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Specs and their trajectories, outside the home and the current folder."""
    made = stage_inputs(tmp_path_factory.mktemp("inputs"))
    return {"{specs}": str(made["specs"]), "{trajectories}": str(made["traj"])}


def _nothing_written_here() -> None:
    assert sorted(p.name for p in Path.cwd().iterdir()) == []


OUTPUTS = {
    "synth-out": ([*SYNTH, "--out", "$HOME/specs"], "$HOME/specs", "`$HOME`", "{home}/specs"),
    "synth-out-braces-after-equals": ([*SYNTH, "--out=${HOME}/specs"], "--out=${HOME}/specs", "`${HOME}`",
                                      "{home}/specs"),
    "synth-out-pwd": ([*SYNTH, "--out", "$PWD/specs"], "$PWD/specs", "`$PWD`", "{here}/specs"),
    "synth-out-variable-not-set": ([*SYNTH, "--out", "$COWORKENV_UNSET_FOLDER/specs"],
                                   "$COWORKENV_UNSET_FOLDER/specs", "`$COWORKENV_UNSET_FOLDER`", "is not set"),
    "rollout-out": (["rollout", "{specs}", "--out", "$HOME/trajectories"], "$HOME/trajectories", "`$HOME`",
                    "{home}/trajectories"),
    "validate-out": (["validate", "{specs}", "--out", "$HOME/results"], "$HOME/results", "`$HOME`",
                     "{home}/results"),
    "curate-out": (["curate", "{trajectories}", "--out=$HOME/sft"], "--out=$HOME/sft", "`$HOME`", "{home}/sft"),
    "serve-token-file": (["serve", "incident_rollback", "--mcp", "--token-file", "$HOME/harness-token"],
                         "$HOME/harness-token", "`$HOME`", "{home}/harness-token"),
}


@pytest.mark.parametrize("case", sorted(OUTPUTS))
def test_an_output_path_holding_an_unexpanded_variable_is_refused_before_writing(
        home: Path, inputs: dict[str, str], case: str) -> None:
    args, written, variable, meant = OUTPUTS[case]
    refused([inputs.get(arg, arg) for arg in args], written, variable, "no shell",
             meant.replace("{home}", str(home)).replace("{here}", str(Path.cwd())))
    _nothing_written_here()
    assert sorted(p.name for p in home.iterdir()) == []


INPUTS = {
    "rollout-specs": (["rollout", "$HOME/specs", "--out", "{home}/trajectories"], "$HOME/specs"),
    "synth-taxonomy": (["synth", "--taxonomy", "${HOME}/taxonomy", "-c", "ticket_triage_update", "--n", "1",
                        "--out", "{home}/out"], "${HOME}/taxonomy"),
    "env-run-spec": (["env", "run", "$HOME/specs/{spec}"], "$HOME/specs/"),
    "train-config": (["train", "sft", "--config", "$HOME/tiny.yaml", "--data", "{home}/sft", "--out",
                      "{home}/checkpoint"], "$HOME/tiny.yaml"),
}


@pytest.mark.parametrize("case", sorted(INPUTS))
def test_an_input_path_holding_an_unexpanded_variable_is_named_as_such_not_as_missing(home: Path, case: str) -> None:
    """The file is there, in the home folder: on main the reader said it was missing."""
    specs = spec_folder(home / "specs")
    (home / "taxonomy").symlink_to(ROOT / "taxonomy", target_is_directory=True)
    (home / "tiny.yaml").write_bytes((ROOT / "trainers" / "configs" / "tiny.yaml").read_bytes())
    args, written = INPUTS[case]
    spec = next(specs.iterdir()).name
    line = refused([arg.replace("{home}", str(home)).replace("{spec}", spec) for arg in args], written, "no shell",
                   str(home))
    assert "no such file" not in line, line
    assert sorted(p.name for p in home.iterdir()) == ["specs", "taxonomy", "tiny.yaml"]


def test_a_path_that_exists_as_written_is_taken(home: Path) -> None:
    """Regression guard (held on main): a folder really named `$HOME` here is read as named."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    specs = spec_folder(Path.cwd() / "$HOME")
    done = CliRunner().invoke(app, ["rollout", "$HOME", "--out", str(home / "trajectories")])
    assert done.exit_code == 0, done.output
    assert specs.is_dir() and any((home / "trajectories").iterdir())


def test_a_dollar_that_names_no_variable_is_taken(home: Path) -> None:
    """Regression guard (held on main): `$5` or a lone `$` is not a variable a shell would expand."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    done = CliRunner().invoke(app, [*SYNTH, "--out", "budget-$5-$"])
    assert done.exit_code == 0, done.output
    assert any((Path.cwd() / "budget-$5-$").iterdir())
    assert os.environ["HOME"] == str(home)
