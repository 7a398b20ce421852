"""Fault corpus, a dagster.yaml edited by hand as read by `dagster dev` (`make ui`), not by `python -m pipelines.run`:
a key written twice (a second `storage:` pasted at the end, a limit set twice), an alias bomb where Dagster's schema
takes any value (`python_logs.dagster_handler_config.handlers`).

`python -m pipelines.run` refuses each before any run, naming the file and the line. Measured on `main`: `dagster dev`
(its code server loads `pipelines.definitions`) and `make ui` went on without a word, Dagster keeping the last of two
keys: the run history went to the second `storage:` folder, away from every earlier run. Now the code location fails
to load with the same one line (shown in the UI and the terminal), and `make ui` runs the same check first
(`python -m pipelines.instance_errors`), exiting 2 before Dagster starts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.harness import ROOT


def _bomb(indent: str) -> str:
    lines = [f"{indent}b0: &b0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"{indent}b{i}: &b{i} [" + ", ".join([f"*b{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


# what is added to the project's dagster.yaml -> the line the error names
EDITS = {
    "a second storage key pasted at the end": ("storage:\n  sqlite:\n    base_dir: {home}/elsewhere\n",
                                               "key 'storage' appears twice"),
    "a limit written twice": ("", "key 'max_concurrent_runs' appears twice"),
    "an alias bomb in the log handlers": ("python_logs:\n  dagster_handler_config:\n    handlers:\n"
                                          "      console:\n        class: logging.NullHandler\n        extra:\n"
                                          + _bomb("          "), "alias bomb"),
}


def _home(folder: Path, edit: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "dagster.yaml").read_text(encoding="utf-8").replace(".dagster", str(folder / ".dagster"))
    if edit == "a limit written twice":
        text = text.replace("max_concurrent_runs: 4", "max_concurrent_runs: 4\n    max_concurrent_runs: 1")
    else:
        text += EDITS[edit][0].format(home=folder)
    (folder / "dagster.yaml").write_text(text, encoding="utf-8")
    return folder


def _python(args: list[str], cwd: Path, home: Path | None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "DAGSTER_HOME" and not key.startswith("COWORKENV_")}
    env["PYTHONPATH"] = str(ROOT)
    if home is not None:
        env["DAGSTER_HOME"] = str(home)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_make_ui_names_a_dagster_yaml_the_pipeline_refuses_before_dagster_dev_starts(tmp_path: Path,
                                                                                      edit: str) -> None:
    # `make ui` sets no DAGSTER_HOME: `dagster dev` reads the current folder's dagster.yaml beside its temp storage.
    here = _home(tmp_path / "here", edit)
    result = _python(["-m", "pipelines.instance_errors"], here, None)
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {here / 'dagster.yaml'}:"), result.stderr
    assert EDITS[edit][1] in lines[0] and "fix the file" in lines[0], lines[0]


def test_dagster_devs_code_location_fails_to_load_naming_a_key_written_twice(tmp_path: Path) -> None:
    home = _home(tmp_path / "home", "a second storage key pasted at the end")
    result = _python(["-c", "import pipelines.definitions"], tmp_path, home)
    assert result.returncode != 0, result
    assert f"InstanceError: {home / 'dagster.yaml'}:" in result.stderr, result.stderr[-2000:]
    assert "key 'storage' appears twice" in result.stderr
    assert not (home / "elsewhere").exists()


def test_the_projects_dagster_yaml_passes_both_checks(tmp_path: Path) -> None:
    """Guard: the shipped file, read from DAGSTER_HOME and from the current folder, and a home without one."""
    assert _python(["-m", "pipelines.instance_errors"], ROOT, None).returncode == 0
    assert _python(["-m", "pipelines.instance_errors"], tmp_path, tmp_path).returncode == 0  # no dagster.yaml
    home = _home(tmp_path / "home", "a limit written twice")
    (home / "dagster.yaml").write_text((ROOT / "dagster.yaml").read_text(encoding="utf-8").replace(
        ".dagster", str(home / ".dagster")), encoding="utf-8")
    result = _python(["-c", "import pipelines.definitions"], tmp_path, home)
    assert result.returncode == 0, result.stderr[-2000:]
