"""Bad input to `python -m pipelines.run` gets one clear line (what, where, what to do) and exit code 2, before any
run starts; every settings field can be set from its COWORKENV_* variable."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from pipelines import run as pipeline_run
from pipelines.resources import CoworkenvSettings, SettingsError, env_var, settings_from_env
from tests.support.pipeline_child import make_workspace

USAGE = 2
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in CoworkenvSettings.model_fields:
        monkeypatch.delenv(env_var(name), raising=False)
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)


def _error_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert pipeline_run.main(argv) == USAGE
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_a_bad_taxonomy_is_named_by_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taxonomy = tmp_path / "tax"
    taxonomy.mkdir()
    (taxonomy / "ops.yaml").write_text(
        "area: ops\ncapabilities:\n  - id: fix_it\n    description: Fix it.\n    skills: [debug]\n"
        "    apps: [mail]\n    colour: blue\n"
    )
    line = _error_line(["--taxonomy", str(taxonomy), "--no-train"], capsys)
    assert line == f"error: {taxonomy / 'ops.yaml'}:7: unknown key 'colour'"


def test_a_missing_taxonomy_folder_suggests_the_flag_the_pipeline_has(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    line = _error_line(["--taxonomy", str(tmp_path / "nowhere")], capsys)
    assert str(tmp_path / "nowhere") in line and "--taxonomy" in line
    with pytest.raises(SystemExit):
        pipeline_run.main(["--help"])
    assert "--taxonomy DIR" in capsys.readouterr().out


@pytest.mark.parametrize(("variable", "value", "expected"), [
    ("COWORKENV_SPECS_PER_CAPABILITY", "abc", "valid integer"),
    ("COWORKENV_SPECS_PER_CAPABILITY", "-1", "must be from 0 to"),
    ("COWORKENV_SEED", "1.5", "valid integer"),
    ("COWORKENV_MIN_ACCEPTANCE_RATE", "lots", "valid number"),
    ("COWORKENV_ALLOW_PARTIAL", "maybe", "valid boolean"),
    ("COWORKENV_EVAL_K", "0", "must be from 1 to"),
])
def test_a_bad_setting_names_its_variable(variable: str, value: str, expected: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(variable, value)
    line = _error_line(["--no-train"], capsys)
    assert f"{variable}={value!r}" in line and expected in line
    with pytest.raises(SettingsError, match=variable):
        settings_from_env()


_VALUES = {str: ("somewhere", "somewhere"), int: ("7", 7), float: ("0.25", 0.25), bool: ("true", True)}


@pytest.mark.parametrize("field", sorted(CoworkenvSettings.model_fields))
def test_every_setting_is_read_from_its_environment_variable(field: str) -> None:
    annotation = CoworkenvSettings.model_fields[field].annotation
    assert annotation in _VALUES, f"{field}: add a sample value for {annotation}"
    text, value = _VALUES[annotation]
    assert value != CoworkenvSettings.model_fields[field].default
    assert getattr(settings_from_env({env_var(field): text}), field) == value


def test_the_code_location_uses_the_same_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    import pipelines.definitions

    monkeypatch.setenv("COWORKENV_SEED", "11")
    module = importlib.reload(pipelines.definitions)
    try:
        resource = module.defs.resources["settings"]
        assert isinstance(resource, CoworkenvSettings) and resource == settings_from_env()
        assert resource.seed == 11
    finally:
        monkeypatch.delenv("COWORKENV_SEED")
        importlib.reload(pipelines.definitions)


@pytest.mark.parametrize(("argv", "env", "expected"), [
    (["--only", "no_such_capability", "--no-train"], {}, "--only no_such_capability: not in the taxonomy"),
    ([], {"COWORKENV_TRAIN_CONFIG": "no_such_config"}, "COWORKENV_TRAIN_CONFIG='no_such_config'"),
    (["--no-train"], {"COWORKENV_HELD_OUT_CAPABILITY": "nope"}, "COWORKENV_HELD_OUT_CAPABILITY='nope' is not a"),
])
def test_bad_choices_are_refused_before_any_run(argv: list[str], env: dict[str, str], expected: str,
                                                monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(ROOT / "taxonomy"))
    assert expected in _error_line(argv, capsys)
    assert not (tmp_path / ".dagster").exists(), "nothing may run before the input is checked"


@pytest.mark.timeout(300)
def test_settings_without_held_out_envs_are_refused_before_training(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", ("report_from_data",), specs=1)
    # No test split: the one env goes to train (or validation), so nothing is left to evaluate on.
    code, console = ws.run(argv=[], COWORKENV_TEST_FRACTION="0")
    assert code == USAGE, console
    assert "no held-out envs to evaluate on" in console and "COWORKENV_SPECS_PER_CAPABILITY" in console
    assert "Traceback" not in console
    with ws.instance() as instance:
        assert instance.get_latest_materialization_event(dg.AssetKey("hub_dataset")) is not None
        assert instance.get_latest_materialization_event(dg.AssetKey("pocketworker_checkpoint")) is None


def test_settings_without_train_envs_are_refused_before_training(tmp_path: Path) -> None:
    """The one trained capability held out whole: every env is in test_heldout, so there is nothing to learn from
    (before: a traceback from the trainer, "no train rows")."""
    ws = make_workspace(tmp_path / "ws", ("report_from_data",), specs=1)
    code, console = ws.run(held_out="report_from_data", argv=[])
    assert code == USAGE, console
    assert "no train envs to learn from" in console and "COWORKENV_TEST_FRACTION" in console
    assert "Traceback" not in console
    with ws.instance() as instance:
        assert instance.get_latest_materialization_event(dg.AssetKey("pocketworker_checkpoint")) is None
