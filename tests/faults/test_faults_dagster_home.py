"""Fault corpus, DAGSTER_HOME set to what Dagster cannot take: a relative path (`DAGSTER_HOME=.dagster`), one with a
blank copied in front, a `~` the shell did not expand, a file, a folder that does not exist. `python -m
pipelines.run` stops with one line naming the variable, its value and what to set, before it writes anything.
Before, the relative and file cases ended in Dagster's traceback, from deep inside the run's start."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.resources import CoworkenvSettings, env_var
from tests.faults.harness import ROOT

VALUES = {
    "a relative folder": ("home", "not an absolute path"),
    "a relative folder with ./": ("./home", "not an absolute path"),
    "a blank in front": (" TMP/home", "starts or ends with a blank"),
    "a ~ left unexpanded": ("~/home", "not an absolute path"),
    "a file": ("TMP/file", "is a file, not a folder"),
    "a folder that does not exist": ("TMP/missing", "no such folder"),
}


@pytest.mark.parametrize("case", VALUES)
def test_an_unusable_dagster_home_is_named_before_anything_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: str) -> None:
    from pipelines import run as pipeline_run

    value, says = VALUES[case]
    value = value.replace("TMP", str(tmp_path))
    (tmp_path / "home").mkdir()
    (tmp_path / "file").write_text("")
    for name in CoworkenvSettings.model_fields:
        monkeypatch.delenv(env_var(name), raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DAGSTER_HOME", value)
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(ROOT / "taxonomy"))
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert pipeline_run.main(["--only", "ticket_triage_update", "--no-train"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"error: DAGSTER_HOME={value!r}") and says in line, line
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before
