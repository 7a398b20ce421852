"""`coworkenv validate DIR --out DIR2 --json`: reads spec Parquet, writes accepted/rejected tables and the funnel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import typer
from typer.testing import CliRunner

from coworkenv.cli.validate import validate_command
from coworkenv.examples import load_example
from coworkenv.store import stages
from coworkenv.validate import procedural_candidates
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.support.validate_base import check_of, sound_spec

app = typer.Typer()
app.command("validate")(validate_command)
app.command("unused")(lambda: None)  # two commands keep `validate` a named sub-command, as in the real CLI


def write_specs(folder: Path) -> None:
    good = load_example("incident_rollback").to_json()
    broken = json.loads(good)
    broken["checks"][0]["rule"]["target"]["id"] = "svc-missing"
    folder.mkdir()
    pq.write_table(pa.table({"spec_json": [good, json.dumps(broken)]}), folder / "part-0.parquet")
    pq.write_table(pa.table({"spec_json": [load_example("meeting_reschedule").to_json(), "not json"],
                             "capability": ["scheduling", "scheduling"]}), folder / "part-1.parquet")


def test_validate_writes_tables_and_prints_the_funnel(tmp_path: Path) -> None:
    write_specs(tmp_path / "specs")
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(tmp_path / "out"),
                                      "--llm", "none", "--json"])
    assert result.exit_code == 0, result.output
    funnel = json.loads(result.stdout)
    assert (funnel["generated"], funnel["accepted"], funnel["acceptance_rate"]) == (4, 2, 0.5)
    assert funnel["mutation_score"] == 1.0
    assert funnel["rejected_by_gate"] == {"references": 1, "schema": 1}
    assert json.loads((tmp_path / "out" / "funnel.json").read_text()) == funnel
    accepted = pq.read_table(tmp_path / "out" / "accepted.parquet").to_pylist()
    rejected = pq.read_table(tmp_path / "out" / "rejected.parquet").to_pylist()
    assert [r["capability"] for r in accepted] == ["incident_investigation_and_fix", "scheduling"]
    assert [(r["origin"], r["gate"]) for r in rejected] == [("part-0.parquet#1", "references"),
                                                            ("part-1.parquet#1", "schema")]
    assert not list((tmp_path / "out").glob(".*.tmp"))


def repairing_model(body: dict[str, Any]) -> dict[str, Any]:
    """Fixes the check on a missing record; answers an unreadable spec with a retitled meeting example."""
    try:
        spec = json.loads(body["messages"][-2]["content"])
        spec["checks"][0]["rule"]["target"]["id"] = "svc-payments"
    except ValueError:
        spec = json.loads(load_example("meeting_reschedule").to_json())
    spec["metadata"]["title"] = "repaired"
    return {"content": json.dumps(spec)}


def test_validate_repairs_through_an_llm_server(tmp_path: Path) -> None:
    write_specs(tmp_path / "specs")
    with FakeOpenAIServer(responder=repairing_model) as server:
        result = CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(tmp_path / "out"),
                                          "--llm", server.url, "--model", "fake", "--rounds", "1", "--json"])
    assert result.exit_code == 0, result.output
    funnel = json.loads(result.stdout)
    assert funnel["accepted"] == 4 and funnel["repair_rounds"] == {"0": 2, "1": 2}
    assert funnel["rejected_by_gate"] == {} and funnel["llm"]["requests"] == 2
    assert (tmp_path / "out" / "llm-cache").is_dir()


def test_validate_reads_what_synth_writes(tmp_path: Path) -> None:
    stages.write_specs(procedural_candidates([load_example(n) for n in ("incident_rollback", "report_from_files")]),
                        tmp_path / "specs" / "part-0.parquet")
    (tmp_path / "specs" / ".tmp-half-written.parquet").write_bytes(b"PAR1")  # a writer's temporary: ignored
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "generated 2 -> schema_valid 2 -> coherent 2 -> solvable 2 -> sound 2 -> accepted 2" in result.output
    rows = pq.read_table(tmp_path / "out" / "accepted.parquet").to_pylist()
    assert [r["source"] for r in rows] == ["hand-written", "hand-written"]


def test_validate_explains_bad_input(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "empty"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "no .json, .jsonl or .parquet files" in result.output
    (tmp_path / "bad").mkdir()
    pq.write_table(pa.table({"spec": ["{}"]}), tmp_path / "bad" / "x.parquet")
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "bad"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "'spec_json' column" in result.output and "no specs found" in result.output


def test_policy_flag_report_accepts_an_imported_task_with_its_findings(tmp_path: Path) -> None:
    # A spec whose frame allows every ticket change: strict rejects it, report accepts it and lists the finding.
    spec = sound_spec()
    check_of(spec, "nothing-else")["rule"]["allow"][0] = {"app": "tickets", "table": "tickets"}
    src = tmp_path / "task.json"
    src.write_text(json.dumps(spec))
    strict = CliRunner().invoke(app, ["validate", str(src), "--out", str(tmp_path / "strict"), "--json"])
    report = CliRunner().invoke(app, ["validate", str(src), "--out", str(tmp_path / "report"), "--json",
                                      "--policy", "report"])
    assert strict.exit_code == 0 and report.exit_code == 0, strict.output + report.output
    assert json.loads(strict.stdout)["accepted"] == 0 and json.loads(report.stdout)["accepted"] == 1
    accepted = pq.read_table(tmp_path / "report" / "accepted.parquet").to_pylist()
    assert accepted[0]["policy"] == "report"
    assert "harm_unguarded" in accepted[0]["findings_json"]
    bad = CliRunner().invoke(app, ["validate", str(src), "--out", str(tmp_path / "bad"), "--policy", "lenient"])
    assert bad.exit_code == 2 and "unknown validation policy 'lenient'" in bad.output
