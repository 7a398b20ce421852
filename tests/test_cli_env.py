"""`coworkenv env`: examples, run, schema and tools, and clear errors for bad input."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names, load_example

runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, ["env", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_examples_lists_names() -> None:
    assert orjson.loads(_ok("examples", "--json")) == example_names()
    assert _ok("examples").split() == example_names()


@pytest.mark.parametrize("name", ["incident_rollback", "meeting_reschedule", "report_from_files"])
def test_run_oracle_json_scores_one(name: str) -> None:
    out = orjson.loads(_ok("run", name, "--agent", "oracle", "--json"))
    assert out["score"] == 1.0 and out["passed"] is True
    assert out["env_id"] == load_example(name).id
    assert {c["id"] for c in out["checks"]} == {c.id for c in load_example(name).checks}
    assert all(c["passed"] for c in out["checks"])


def test_run_noop_prints_a_readable_table() -> None:
    out = _ok("run", "meeting_reschedule", "--agent", "noop")
    lines = out.splitlines()
    assert lines[2].split()[:3] == ["check", "kind", "result"]
    moved = next(line for line in lines if line.startswith("moved-to-free-slot"))
    assert "FAIL" in moved and "expected equals '2026-04-15T14:00:00Z'" in moved
    assert lines[-1].startswith("score 0.") and lines[-1].endswith("FAILED")


def test_run_accepts_a_path(tmp_path: Path) -> None:
    path = tmp_path / "incident.json"
    path.write_text(load_example("incident_rollback").to_json())
    out = orjson.loads(_ok("run", str(path), "--json", "--agent", "noop"))
    assert out["passed"] is False and 0 <= out["score"] < 1


def test_schema_prints_the_envspec_json_schema() -> None:
    schema = orjson.loads(_ok("schema"))
    Draft202012Validator.check_schema(schema)
    assert "checks" in schema["properties"] and schema["title"] == "EnvSpec"


def test_tools_prints_the_openai_tools() -> None:
    tools = orjson.loads(_ok("tools", "report_from_files"))
    assert [t["function"]["name"] for t in tools] == load_example("report_from_files").tools
    assert all(t["type"] == "function" for t in tools)


def _bad(*args: str) -> str:
    result = runner.invoke(app, ["env", *args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.stdout == ""
    return result.stderr


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    err = _bad("run", str(tmp_path / "nope.json"))
    assert err.startswith("error: ") and "no such file" in err


def test_malformed_json_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"capability": "x",')
    err = _bad("tools", str(path))
    assert "not valid JSON" in err and str(path) in err


def test_invalid_spec_names_the_field_path(tmp_path: Path) -> None:
    raw = orjson.loads(load_example("incident_rollback").to_json())
    raw["checks"][0]["rule"]["target"]["id"] = "svc-ghost"
    path = tmp_path / "ghost.json"
    path.write_bytes(orjson.dumps(raw))
    assert "checks[0].rule.target.id: no record 'svc-ghost'" in _bad("run", str(path), "--json")


def test_unknown_example_lists_the_known_ones() -> None:
    err = _bad("run", "incident_rollbak")
    assert "no example named 'incident_rollbak'" in err and "incident_rollback" in err


def test_unknown_agent_is_a_usage_error() -> None:
    result = runner.invoke(app, ["env", "run", "incident_rollback", "--agent", "gpt"])
    assert result.exit_code == 2 and "Traceback" not in result.output
