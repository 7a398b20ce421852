"""Fault corpus, a path written as a shell would expand it, which reached the product as written: `--out=~/specs`
(bash expands `~` only at the start of a word, so not after `--out=`), `"~/specs"` in quotes, and
`COWORKENV_DATA_DIR=~/data` or `$HOME/data` in an env file (`docker run --env-file`, systemd's `Environment=` and
Dagster's `.env` keep both as written).

On main each was taken as written: `synth --out=~/specs` wrote into a folder named `~` under the current folder and
said "wrote 1 specs to ~/specs/...", so the user found nothing in their home folder; a command reading `'~/specs'`
said "no such file" of a folder that is there; the pipeline's data folder was `./~/data`. Now each is refused before
any work, naming the path meant (`coworkenv/unexpanded_paths.py`)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from pipelines.resources import SettingsError, settings_from_env
from tests.faults.harness import ROOT, home_beside_here, pipeline_refused, refused, spec_folder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own (HOME), and the current folder beside it, empty: a folder named `~` would show."""
    return home_beside_here(tmp_path, monkeypatch)


def _nothing_written_here() -> None:
    assert sorted(p.name for p in Path.cwd().iterdir()) == []


_USER = pwd.getpwuid(os.getuid()).pw_name  # `~user` is that user's home folder, whatever HOME says


@pytest.mark.parametrize(("command", "written"), [
    (["synth", "--taxonomy", "{taxonomy}", "-c", "ticket_triage_update", "--n", "1", "--out=~/specs"], "--out=~/specs"),
    (["synth", "--taxonomy", "{taxonomy}", "-c", "ticket_triage_update", "--n", "1", "--out", "~/specs"], "~/specs"),
    (["synth", "--taxonomy", "{taxonomy}", "-c", "ticket_triage_update", "--n", "1", "--out", "~"], "~"),
    (["synth", "--taxonomy", "{taxonomy}", "-c", "ticket_triage_update", "--n", "1", f"--out=~{_USER}/specs"], f"--out=~{_USER}/specs"),
    (["rollout", "{specs}", "--out=~/trajectories"], "--out=~/trajectories"),
    (["validate", "{specs}", "--out=~/results"], "--out=~/results"),
], ids=["after-equals", "quoted", "home-itself", "named-user", "rollout-out", "validate-out"])
def test_an_output_folder_under_an_unexpanded_home_is_refused_before_writing(
        home: Path, command: list[str], written: str) -> None:
    specs = spec_folder(home / "specs-in")
    args = [arg.replace("{specs}", str(specs)).replace("{taxonomy}", str(ROOT / "taxonomy")) for arg in command]
    meant = pwd.getpwuid(os.getuid()).pw_dir if written.startswith(f"--out=~{_USER}") else str(home)
    line = refused(args, written, "`~", "only a shell", meant)
    assert str(Path.cwd()) in line, line
    _nothing_written_here()


@pytest.mark.parametrize("reader", ["rollout", "taxonomy"])
def test_an_input_under_an_unexpanded_home_is_named_as_such_not_as_missing(home: Path, reader: str) -> None:
    """The folder is there, in the home folder: on main the reader said it was missing (or read nothing)."""
    specs = spec_folder(home / "specs")
    (home / "taxonomy").symlink_to(ROOT / "taxonomy", target_is_directory=True)
    args = {"rollout": ["rollout", "~/specs", "--out", str(home / "trajectories")],
            "taxonomy": ["synth", "--taxonomy=~/taxonomy", "-c", "ticket_triage_update", "--n", "1",
                         "--out", str(home / "out")]}[reader]
    refused(args, "`~", str(home))
    assert not (home / "trajectories").exists() and not (home / "out").exists()
    assert specs.is_dir()


def test_a_name_that_merely_starts_with_a_tilde_is_taken(home: Path) -> None:
    """Regression guard (held on main): `~draft` names no user, so no shell would have expanded it; it is a name."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    done = CliRunner().invoke(app, ["synth", "--taxonomy", str(ROOT / "taxonomy"), "-c", "ticket_triage_update",
                                    "--n", "1", "--out=~draft-specs"])
    assert done.exit_code == 0, done.output
    assert [p.name for p in (Path.cwd() / "~draft-specs").iterdir()]


PATH_SETTINGS = ["COWORKENV_DATA_DIR", "COWORKENV_TAXONOMY_DIR", "COWORKENV_TRAIN_CONFIG", "COWORKENV_RL_CONFIG"]


@pytest.mark.parametrize("variable", PATH_SETTINGS)
@pytest.mark.parametrize("shape", ["~/{}", "$HOME/{}", "${{HOME}}/{}"], ids=["tilde", "dollar", "braces"])
def test_a_path_setting_from_an_env_file_with_an_unexpanded_home_is_refused(
        home: Path, variable: str, shape: str) -> None:
    value = shape.format("coworkenv")
    with pytest.raises(SettingsError) as caught:
        settings_from_env({variable: value})
    message = str(caught.value)
    assert message.startswith(f"{variable}={value!r}"), message
    assert "only a shell" in message and str(home / "coworkenv") in message, message


def test_a_path_setting_naming_a_folder_by_its_full_path_is_taken(home: Path) -> None:
    """Regression guard (held on main): the full path, and `./~` for a folder really named so, are taken."""
    assert settings_from_env({"COWORKENV_DATA_DIR": str(home / "data")}).data_dir == str(home / "data")
    assert settings_from_env({"COWORKENV_DATA_DIR": "./~/data"}).data_dir == "./~/data"


@pytest.mark.parametrize("value", ["~/data", "$HOME/data"])
def test_the_pipeline_refuses_an_unexpanded_data_folder_before_writing_anything(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        value: str) -> None:
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_DATA_DIR", value)
    assert line.startswith(f"error: COWORKENV_DATA_DIR={value!r}") and str(home / "data") in line, line
    _nothing_written_here()


def test_the_pipeline_refuses_an_unexpanded_taxonomy_option(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "taxonomy").symlink_to(ROOT / "taxonomy", target_is_directory=True)
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_SEED", "0", "--taxonomy=~/taxonomy")
    assert "~/taxonomy" in line and str(home / "taxonomy") in line, line
    _nothing_written_here()
