"""Fault corpus, what `python -m pipelines.run` prints that names a path: its progress and result lines (where the
dataset, the shards, the checkpoint went; why a step failed) and its `--taxonomy` flag. Measured on `main`: a data
folder reached through a link to a folder named with a line break and a terminal escape (`da\\x1b[31mta\\nx`, legal
and working) printed "dataset  /.../da" + ESC[31m + "ta" and "x/hub/dataset" on two lines (the escape coloured the
terminal); a step's error naming such a file split the failure lines the same way; `--taxonomy 'taxo\\nnomy'` was
refused as "COWORKENV_TAXONOMY_DIR='taxo\\nnomy': ...; fix or unset the variable", naming a variable the user never
set. Now those lines are escaped as `error:` lines are, and the flag is named as typed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import pipelines.freshness
from pipelines import run

ODD = "da\x1b[31mta\nx"  # a legal folder name: a terminal escape and a line break


def test_the_result_lines_name_an_odd_folder_on_one_line_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    dataset = tmp_path / ODD / "hub" / "dataset"
    meta = {"hub_dataset": {"location": str(dataset), "version": "v1"}, "sft_shards": {"dataset_version": "abc"}}
    monkeypatch.setattr(pipelines.freshness, "latest_metadata", lambda _instance, asset: meta.get(asset))
    run._print_locations(None, [("sft_shards",), ("hub_dataset",)])  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert "\x1b" not in out and out.count("\n") == 3, out
    assert f"  dataset          {tmp_path}/da\\x1b[31mta\\nx/hub/dataset\n" in out, out


def _failure(step: str, message: str) -> Any:
    error = SimpleNamespace(cause=None, message=message, cls_name="WriteError")
    return SimpleNamespace(is_step_failure=True, step_failure_data=SimpleNamespace(error=error), step_key=step,
                           event_type_value="STEP_FAILURE")


def test_a_failed_step_naming_an_odd_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = SimpleNamespace(run_id="r1", all_events=[_failure(
        "task_specs", f"coworkenv.atomic.WriteError: cannot write {tmp_path / ODD}/store: No space left on device")])
    assert run._failed(result) == 1  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert "\x1b" not in err and err.count("\n") == 2, err
    assert f"  task_specs: WriteError: cannot write {tmp_path}/da\\x1b[31mta\\nx/store: No space left" in err, err


@pytest.mark.parametrize("value", ["taxo\nnomy", "taxo\x1b[2Jnomy", "taxonomy\t"], ids=["line-break", "escape", "tab"])
def test_a_taxonomy_flag_holding_a_control_character_is_named_as_the_flag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str) -> None:
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("COWORKENV_TAXONOMY_DIR", raising=False)
    assert run.main(["--no-train", "--taxonomy", value]) == run.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"error: --taxonomy {value!r}: ") and err.count("\n") == 1, err
    assert "COWORKENV_TAXONOMY_DIR" not in err and "unset the variable" not in err, err
    assert not (tmp_path / "data").exists() and not (tmp_path / "storage").exists()


def test_the_variable_is_still_named_when_it_was_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Guard: without the flag, the variable that holds the value is the one named."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", "taxo\nnomy")
    assert run.main(["--no-train"]) == run.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("error: COWORKENV_TAXONOMY_DIR='taxo\\nnomy': ") and "fix or unset the variable" in err, err
