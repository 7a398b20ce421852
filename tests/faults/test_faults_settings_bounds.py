"""Fault corpus, a count that sizes a run set absurdly high (a digit held down, a number pasted twice: 10^13 specs per
capability, samples per env, RL seeds, repair rounds) in a COWORKENV_* variable or the matching command option. It was
accepted: `make run` and `coworkenv synth` started a run that would never end (a capability's own quota is capped at
1,000,000). Each is refused up front naming the setting, the value and the allowed range, before any run starts or
anything is written; the bound itself is taken."""

from __future__ import annotations

from pathlib import Path

import pytest
from annotated_types import Le

from pipelines.resources import CoworkenvSettings, SettingsError, env_var, settings_from_env
from tests.faults.harness import CAPABILITY, pipeline_refused

COUNTS = sorted(f for f, info in CoworkenvSettings.model_fields.items() if info.annotation is int and f != "seed")
HUGE = str(10**13)


def _upper(field: str) -> int:
    (bound,) = [m.le for m in CoworkenvSettings.model_fields[field].metadata if isinstance(m, Le)]
    return int(bound)


def test_every_count_setting_has_an_upper_bound() -> None:
    # The seed is any 64-bit integer; every other integer setting is a count that sizes a run.
    assert len(COUNTS) >= 8 and all(_upper(f) <= 1_000_000 for f in COUNTS)


@pytest.mark.parametrize("field", COUNTS)
def test_an_absurd_count_setting_is_refused_naming_the_setting_value_and_range(field: str) -> None:
    with pytest.raises(SettingsError) as caught:
        settings_from_env({env_var(field): HUGE})
    message = str(caught.value)
    low = CoworkenvSettings.model_fields[field].metadata[0].ge
    assert message.startswith(f"{env_var(field)}='{HUGE}': must be from {low} to {_upper(field)}"), message
    assert "fix or unset the variable" in message
    assert getattr(settings_from_env({env_var(field): str(_upper(field))}), field) == _upper(field)
    with pytest.raises(SettingsError, match=f"must be from {low} to {_upper(field)}"):
        settings_from_env({env_var(field): str(_upper(field) + 1)})


@pytest.mark.parametrize("variable", ["COWORKENV_SPECS_PER_CAPABILITY", "COWORKENV_EVAL_K", "COWORKENV_RL_SEEDS",
                                      "COWORKENV_REPAIR_ROUNDS"])
def test_the_pipeline_refuses_an_absurd_count_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str) -> None:
    line = pipeline_refused(tmp_path, monkeypatch, capsys, variable, HUGE, "--only", CAPABILITY)
    assert line.startswith(f"error: {variable}='{HUGE}': must be from ") and " to " in line, line


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("option", "args"), [
    ("--n", ["synth", "--out", "OUT", "-c", CAPABILITY, "--n", HUGE]),
    ("--rounds", ["validate", "SPECS", "--out", "OUT", "--rounds", HUGE]),
    ("--k", ["rollout", "SPECS", "--out", "OUT", "--k", HUGE]),
    ("--max-steps", ["rollout", "SPECS", "--out", "OUT", "--max-steps", HUGE]),
    ("--max-tokens", ["env", "run", "SPECS", "--max-tokens", HUGE]),
])
def test_a_command_refuses_an_absurd_count_option_before_any_work(tmp_path: Path, option: str,
                                                                 args: list[str]) -> None:
    from typer.testing import CliRunner

    from coworkenv.cli import app
    from coworkenv.examples import example_names, load_example

    (tmp_path / "specs").mkdir()  # one good spec: on main the command ran on it (10^13 episodes of it, for --k)
    name = example_names()[0]
    (tmp_path / "specs" / f"{name}.json").write_text(load_example(name).to_json())
    result = CliRunner().invoke(app, [str(tmp_path / a.lower()) if a in ("SPECS", "OUT") else a for a in args])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"'{option}'" in result.output and "less than or equal to" in result.output, result.output
    assert not (tmp_path / "out").exists()
