"""Fault corpus, a spec file whose `schema_version` this coworkenv does not read: one written by a newer coworkenv
("3"), one edited by hand ("v2", null), the version typed as a number (2, 2.0). On main every command that loads a
spec (`coworkenv env run|tools`, `serve`, `eval`, `rollout` through the stage reader) said pydantic's "schema_version:
Input should be '2' (got '3')", which reads as a defect of the spec to change to what this coworkenv knows, not as a
spec of another version (upgrade coworkenv) or a number to quote; and the command's one `error:` line printed the
issue list's line breaks as `\\n  - `. Now `schema_version_problem` (coworkenv/spec.py) says which, before the rest
of the spec is read under rules it was not written to, and `SpecError.line` is the message on one line. Regression
guards: a version-1 spec (migrated) and the current version load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coworkenv.loading import SpecError, load_spec

V1 = Path(__file__).parents[1] / "data" / "spec_v1_incident_rollback.json"

NEWER = "is not one this coworkenv reads"
NUMBER = 'write it as the string "'
CASES: dict[str, tuple[Any, str]] = {
    "written by a newer coworkenv": ("3", NEWER),
    "far newer": ("12", NEWER),
    "edited by hand": ("v2", NEWER),
    "null": (None, NEWER),
    "an unknown number": (3, NEWER),
    "the current version as a number": (2, NUMBER),
    "the current version as a float": (2.0, NUMBER),
}


@pytest.fixture(scope="module")
def spec_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(V1.read_text())
    return data


def _written(folder: Path, data: dict[str, Any], version: Any) -> Path:
    path = folder / "spec.json"
    path.write_text(json.dumps({**data, "schema_version": version}))
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_spec_of_a_version_this_coworkenv_does_not_read_says_which_and_what_to_do(
        tmp_path: Path, spec_data: dict[str, Any], case: str) -> None:
    version, says = CASES[case]
    path = _written(tmp_path, spec_data, version)
    with pytest.raises(SpecError) as raised:
        load_spec(path)
    assert [issue.path for issue in raised.value.issues] == ["schema_version"], raised.value.issues
    assert says in str(raised.value) and "Input should be" not in str(raised.value), str(raised.value)
    assert str(path) in raised.value.line and "\n" not in raised.value.line


def test_the_command_line_names_the_file_on_one_line_and_exits_2(tmp_path: Path, spec_data: dict[str, Any]) -> None:
    from typer.testing import CliRunner

    from coworkenv.cli import app

    path = _written(tmp_path, spec_data, "3")
    done = CliRunner().invoke(app, ["env", "tools", str(path)])
    assert done.exit_code == 2, done.output
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: invalid environment spec {path}: schema_version: "), lines
    assert "\\n" not in lines[0] and "upgrade coworkenv" in lines[0], lines


@pytest.mark.parametrize("version", ["1", "2", "absent"])
def test_a_version_this_coworkenv_reads_loads(tmp_path: Path, spec_data: dict[str, Any], version: str) -> None:
    """Regression guard: held on main."""
    data = {k: v for k, v in spec_data.items() if k != "schema_version"} if version == "absent" else \
        {**spec_data, "schema_version": version}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(data))
    assert load_spec(path).schema_version == "2"
