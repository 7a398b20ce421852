"""Fault corpus, COWORKENV_* values as an env file leaves them: the carriage return of a line saved on Windows
(`data\\r`), blanks around the value, a line break, the quotes around it (`docker run --env-file` keeps them). Each
was taken as written: COWORKENV_DATA_DIR=data\\r made a second data folder whose name ends in an invisible
character, a quoted held-out capability named none, `org/repo\\n` passed as a Hub repo id. Now each text setting
refuses them up front, naming the variable and what to remove, before any run and any write."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.resources import CoworkenvSettings, SettingsError, env_var, settings_from_env
from tests.faults.harness import pipeline_refused

TEXT = sorted(f for f, info in CoworkenvSettings.model_fields.items() if info.annotation is str)
LEFTOVERS = {"a carriage return": ("{}\r", "carriage return"), "a trailing blank": ("{} ", "blank"),
             "a leading blank": (" {}", "blank"), "a line break": ("{}\n", "line break"),
             "double quotes": ('"{}"', "quotes"), "single quotes": ("'{}'", "quotes")}
MEANT = {"hub_repo_id": "org/coworkenv", "hub_model_repo_id": "org/coworkenv-model", "llm_url": "http://host:8000/v1",
         "held_out_capability": "inbox_triage_reply"}


@pytest.mark.parametrize("field", TEXT)
def test_a_text_setting_refuses_what_an_env_file_left_around_it(field: str) -> None:
    meant = MEANT.get(field, "tiny")
    assert getattr(settings_from_env({env_var(field): meant}), field) == meant
    for shape, says in LEFTOVERS.values():
        value = shape.format(meant)
        with pytest.raises(SettingsError) as caught:
            settings_from_env({env_var(field): value})
        message = str(caught.value)
        assert message.startswith(f"{env_var(field)}={value!r}") and says in message and "remove" in message, message


def test_a_number_from_a_windows_env_file_is_the_number() -> None:
    """Regression guard (passes on main): a number's blanks and line end carry no meaning, and are taken."""
    assert settings_from_env({"COWORKENV_SEED": "7\r", "COWORKENV_EVAL_K": " 2 "}).seed == 7


@pytest.mark.parametrize("leftover", ["a carriage return", "double quotes"])
def test_the_pipeline_refuses_a_data_folder_from_an_env_file_before_writing_anything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], leftover: str) -> None:
    value = LEFTOVERS[leftover][0].format(tmp_path / "data")
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_DATA_DIR", value)
    assert line.startswith("error: COWORKENV_DATA_DIR=") and LEFTOVERS[leftover][1] in line, line
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("data", '"'))) == []
