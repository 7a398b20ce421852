"""Fault corpus, settings: every COWORKENV_* variable set to an empty, blank, negative, huge or non-numeric value (or
a NUL character, or nothing where a path or name is needed). Each is refused up front with the variable, its value
and what it must be, before any run starts and anything is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from annotated_types import Ge

from pipelines.resources import CoworkenvSettings, SettingsError, env_var, settings_from_env

NUMERIC = sorted(f for f, info in CoworkenvSettings.model_fields.items() if info.annotation in (int, float))
TEXT = sorted(f for f, info in CoworkenvSettings.model_fields.items() if info.annotation is str)
NAMED = ["data_dir", "rl_config", "taxonomy_dir", "train_config"]  # a path or a config name: never empty


def _lower_bound(field: str) -> float | None:
    return next((m.ge for m in CoworkenvSettings.model_fields[field].metadata if isinstance(m, Ge)), None)


def _refused(field: str, value: str) -> str:
    with pytest.raises(SettingsError) as caught:
        settings_from_env({env_var(field): value})
    message = str(caught.value)
    assert message.startswith(f"{env_var(field)}={value!r}") and "fix or unset the variable" in message, message
    return message


@pytest.mark.parametrize("field", NUMERIC)
def test_a_numeric_setting_refuses_empty_blank_huge_and_non_numeric_values(field: str) -> None:
    huge = "9" * 40 if CoworkenvSettings.model_fields[field].annotation is int else "1e400"  # past 64 bits, inf
    for value in ("", "   ", huge, "ten", "0x10", "\0"):
        _refused(field, value)
    bound = _lower_bound(field)
    if bound is not None:  # a count or a rate below its floor
        _refused(field, str(int(bound) - 1))
    else:  # the seed: any 64-bit integer, negative ones too
        assert settings_from_env({env_var(field): "-7"}).seed == -7


@pytest.mark.parametrize("field", TEXT)
def test_a_text_setting_refuses_a_nul_character(field: str) -> None:
    assert "NUL" in _refused(field, "data\0dir")


@pytest.mark.parametrize("field", TEXT)
def test_a_text_setting_refuses_bytes_that_are_not_utf8(field: str) -> None:
    # COWORKENV_DATA_DIR=$'/data/d\xff' reached the first step and ended in a traceback (orjson: "str is not valid
    # UTF-8"); Python hands such bytes over as surrogate escapes.
    assert "not UTF-8" in _refused(field, os.fsdecode(b"data\xffdir"))


@pytest.mark.parametrize("field", NAMED)
def test_a_path_or_name_setting_refuses_an_empty_value(field: str) -> None:
    for value in ("", "  "):
        assert "must not be empty" in _refused(field, value)


def test_an_empty_data_dir_stops_the_pipeline_before_it_writes_into_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from pipelines import run as pipeline_run

    for name in CoworkenvSettings.model_fields:
        monkeypatch.delenv(env_var(name), raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.setenv("COWORKENV_DATA_DIR", "")
    assert pipeline_run.main(["--no-train"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: COWORKENV_DATA_DIR=''") and "must not be empty" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(("option", "args"), [
    ("--max-rows-per-shard", ["curate", "TRAJ", "--out", "OUT", "--max-rows-per-shard", "9" * 30]),  # was a
    ("--max-tokens", ["curate", "TRAJ", "--out", "OUT", "--max-tokens=" + "9" * 30]),  # TypeError deep in Polars
    ("--k", ["rollout", "SPECS", "--out", "OUT", "--k", "-" + "9" * 30]),
    ("--n", ["synth", "--out", "OUT", "-c", "ticket_triage_update", "--n", "9" * 25]),
    ("--seed", ["validate", "SPECS", "--out", "OUT", "--seed", "9" * 20]),
])
def test_a_command_line_number_past_64_bits_is_refused_before_any_work(tmp_path: Path, option: str,
                                                                      args: list[str]) -> None:
    from tests.faults.harness import refused

    refused([str(tmp_path / a.lower()) if a in ("TRAJ", "SPECS", "OUT") else a for a in args], option,
            "past 64 bits")
    assert not (tmp_path / "out").exists()
