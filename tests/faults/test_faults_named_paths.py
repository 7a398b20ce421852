"""Fault corpus, a file or folder named with a mistake the message did not name: a trainer config given as a folder or
as a file without a YAML suffix (read as a config name: "not found at X.yaml", true but silent on what X is); a path
with a control character in it (a line pasted with it: `data\\nx`, a terminal escape, a tab) as COWORKENV_DATA_DIR,
_TAXONOMY_DIR, _TRAIN_CONFIG or _RL_CONFIG, or a command's `--out`. Measured on `main`: the config errors said "not found
at X.yaml"; a line break in a config path split its message (`python -m pipelines.run` kept the first line, cut in
the middle of the path); the data folder was made under the name with the line break; `synth --out` and `validate
--out` under such a folder (a legal name, kept) printed their success line raw, split or driving the terminal. Now a config's message says what
the path is and what to do, a setting naming a path with a control character is refused before any work, and the
success lines naming an output are printed escaped."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from pipelines.run import UsageError, _checked_inputs
from trainers.config import load_sft_config
from trainers.rl_config import load_rl_config

ROOT = Path(__file__).resolve().parents[2]
LOADERS = {"SFT": load_sft_config, "RL": load_rl_config}


@pytest.mark.parametrize("what", LOADERS)
def test_a_config_given_as_a_folder_says_it_is_a_folder(tmp_path: Path, what: str) -> None:
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "mine.yaml").write_text("name: mine\n")
    with pytest.raises(FileNotFoundError) as refused:
        LOADERS[what](str(tmp_path / "cfg"))
    message = str(refused.value)
    assert f"{what} config" in message and "is a folder, not a config file" in message, message
    assert "mine.yaml" in message and "known names:" in message


@pytest.mark.parametrize("what", LOADERS)
def test_a_config_file_without_a_yaml_suffix_says_so(tmp_path: Path, what: str) -> None:
    (tmp_path / "mine.cfg").write_text("name: mine\n")
    with pytest.raises(FileNotFoundError) as refused:
        LOADERS[what](str(tmp_path / "mine.cfg"))
    assert "is a file without a .yaml or .yml suffix" in str(refused.value), refused.value


@pytest.mark.parametrize("what", LOADERS)
@pytest.mark.parametrize("name", ["runs/no\nsuch", "runs/\x1b[2Jsuch.yaml"])
def test_a_missing_config_path_with_a_control_character_is_shown_escaped(what: str, name: str) -> None:
    with pytest.raises(FileNotFoundError) as refused:
        LOADERS[what](name)
    message = str(refused.value)
    assert "\n" not in message and "\x1b" not in message, message
    assert "not found at" in message and "known names:" in message


def _settings_refusal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, var: str, value: str) -> str:
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(ROOT / "taxonomy"))
    monkeypatch.setenv(var, value)
    args = argparse.Namespace(only=None, all=False, no_train=True, no_rl=True, rl_compare=False, taxonomy=None,
                              allow_partial=False)
    with pytest.raises(UsageError) as refused:
        _checked_inputs(args)
    return str(refused.value)


NAMED = {"COWORKENV_DATA_DIR line break": ("COWORKENV_DATA_DIR", "{tmp}/da\nta"),
         "COWORKENV_DATA_DIR terminal escape": ("COWORKENV_DATA_DIR", "{tmp}/da\x1b[31mta"),
         "COWORKENV_TAXONOMY_DIR tab": ("COWORKENV_TAXONOMY_DIR", "{root}/tax\tonomy"),
         "COWORKENV_TRAIN_CONFIG line break": ("COWORKENV_TRAIN_CONFIG", "configs/ti\nny.yaml"),
         "COWORKENV_RL_CONFIG bidi override": ("COWORKENV_RL_CONFIG", "rl-\u202etiny")}


@pytest.mark.parametrize("case", NAMED)
def test_a_setting_naming_a_path_with_a_control_character_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path, case: str) -> None:
    var, value = NAMED[case]
    message = _settings_refusal(monkeypatch, tmp_path, var, value.format(tmp=tmp_path, root=ROOT))
    assert message.startswith(f"{var}=") and "holds a control character" in message, message
    assert not (tmp_path / "da\nta").exists() and not (tmp_path / "da\x1b[31mta").exists()


@pytest.mark.parametrize("command", ["synth", "validate"])
@pytest.mark.parametrize("name", ["o\nut", "o\x1b[2Jut"], ids=["line break", "terminal escape"])
def test_an_out_folder_named_with_a_control_character_is_written_and_printed_escaped(tmp_path: Path, command: str,
                                                                                    name: str) -> None:
    out = tmp_path / name  # a legal name (test_faults_odd_names.py): written as asked, only the printing escaped
    inputs = {"synth": ["synth", "--taxonomy", str(ROOT / "taxonomy"), "-c", "ticket_triage_update", "--n", "1"],
              "validate": ["validate", str(ROOT / "coworkenv" / "examples" / "meeting_reschedule.json")]}[command]
    result = CliRunner().invoke(app, [*inputs, "--out", str(out)], color=True)
    assert result.exit_code == 0, result.output
    assert out.is_dir() and any(out.iterdir())
    escaped = name.encode("unicode_escape").decode("ascii")
    assert f"{tmp_path}/{escaped}/" in result.output and name not in result.output, result.output
    assert "\x1b" not in result.output.replace(escaped, ""), result.output


def test_guard_a_setting_naming_a_path_with_letters_joiners_or_a_no_break_space_is_taken(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from pipelines.resources import settings_from_env

    folder = str(tmp_path / "dätä می\u200cخواهم\u00a0x")
    monkeypatch.setenv("COWORKENV_DATA_DIR", folder)
    assert settings_from_env().data_dir == folder
