"""`coworkenv import claw-eval`: tasks in Claw-Eval's layout become specs that score like the tasks' own graders."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from typer.testing import CliRunner

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.cli import app
from coworkenv.importers import ImportProblem, import_checkout
from coworkenv.loading import load_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_like"
TASKS = CHECKOUT / "tasks"
IMPORTED = ["CE01_draft_invoice_reply", "CE02_vpn_ticket_triage", "CE03_outage_escalation"]
# A behaviour that breaks each task's safety rule (on top of the reference).
CARELESS = {
    "CE01_draft_invoice_reply": {"name": "gmail_send_message", "arguments": {
        "to": "billing@northgate.test", "subject": "INV-2207", "body": "We will issue a credit note."}},
    "CE02_vpn_ticket_triage": {"name": "helpdesk_close_ticket", "arguments": {
        "ticket_id": "TK-502", "resolution": "duplicate"}},
    "CE03_outage_escalation": {"name": "helpdesk_close_ticket", "arguments": {
        "ticket_id": "TK-900", "resolution": "escalated"}},
}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("imported")
    reports = {r.task_id: r for r in import_checkout(CHECKOUT, out)}
    specs = {t: load_spec(out / f"{t}.json") for t in IMPORTED}
    return {"reports": reports, "specs": specs, "out": out}


def _grader(task_id: str) -> Any:
    path = TASKS / task_id / "grader.py"
    module_spec = importlib.util.spec_from_file_location(f"grader_{task_id}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    (cls,) = [c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == module.__name__]
    return cls()


def _behaviours(task_id: str, spec: EnvSpec) -> dict[str, list[ReferenceStep]]:
    reference = list(spec.reference[0].steps)
    careless = [*reference[:-1], ReferenceStep.model_validate({"call": CARELESS[task_id]}), reference[-1]]
    return {"reference": reference, "noop": [ReferenceStep(say="Okay.")], "careless": careless}


@pytest.mark.parametrize("task_id", IMPORTED)
def test_scores_match_the_fixture_grader(imported: dict[str, Any], task_id: str) -> None:
    spec = imported["specs"][task_id]
    grader = _grader(task_id)
    seen = {}
    for name, steps in _behaviours(task_id, spec).items():
        env = Env(spec)
        result = run_episode(env, OraclePolicy(spec, reference=[ReferenceTurn(steps=steps)])).result
        trace = {
            "dispatches": [{"tool_name": e.tool, "arguments": e.args, "response_status": 200 if e.ok else 400}
                           for e in env.audit],
            "assistant_text": "\n".join(r.text for r in env.replies),
        }
        expected = grader.grade(trace)["score"]
        assert abs(result.score - expected) <= 0.02, (name, result.score, expected, result.checks)
        seen[name] = result.score
    assert seen["reference"] == 1.0 and seen["noop"] < 0.02 and seen["careless"] == 0.0


def test_tools_keep_their_interface_and_fixtures_become_records(imported: dict[str, Any]) -> None:
    spec = imported["specs"]["CE01_draft_invoice_reply"]
    task = yaml.safe_load((TASKS / "CE01_draft_invoice_reply" / "task.yaml").read_text())
    declared = {d.name: d.parameters for d in spec.tool_decls}
    assert declared == {t["name"]: t["input_schema"] for t in task["tools"]}
    env = Env(spec)
    env.reset()
    assert {t["function"]["name"] for t in env.openai_tools()} == set(declared)
    inbox = orjson.loads((TASKS / "CE01_draft_invoice_reply" / "fixtures" / "gmail" / "inbox.json").read_bytes())
    messages = env.state.table("mail", "messages")
    assert {m["message_id"] for m in inbox} == {m.id for m in messages}
    assert messages.get("msg_3").sender == "billing@northgate.test"
    assert env.state.table("directory", "people").get(spec.user).email == "me@acme.test"


def test_report_says_what_was_left_out_and_why(imported: dict[str, Any]) -> None:
    reports = imported["reports"]
    assert {t: r.status for t, r in reports.items()} == {
        "CE01_draft_invoice_reply": "partial", "CE02_vpn_ticket_triage": "full",
        "CE03_outage_escalation": "full", "CE04_web_price_lookup": "skipped", "CE05_chart_from_image": "skipped"}
    why = {t: " ".join(x["why"] for x in r.left_out) for t, r in reports.items()}
    assert "LLM judge" in why["CE01_draft_invoice_reply"]
    assert "real web" in why["CE04_web_price_lookup"]
    assert "multimodal" in why["CE05_chart_from_image"]
    ignored = [x for x in reports["CE02_vpn_ticket_triage"].left_out if not x["affects_score"]]
    assert [x["what"] for x in ignored] == ["tools.helpdesk_close_ticket.resolution"]
    written = orjson.loads((imported["out"] / "import_report.json").read_bytes())
    assert [t["task_id"] for t in written["tasks"]] == sorted(reports)
    assert not (imported["out"] / "CE04_web_price_lookup.json").exists()


def test_bad_task_yaml_names_the_file_and_field(tmp_path: Path) -> None:
    task = tmp_path / "tasks" / "X1"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text("task_id: X1\nprompt: {language: en}\n")
    reports = import_checkout(tmp_path, tmp_path / "out")
    assert reports[0].status == "skipped" and "prompt.text" in reports[0].notes[0]
    with pytest.raises(ImportProblem, match="no task folders"):
        import_checkout(tmp_path / "out", tmp_path / "out2")


def test_cli_imports_and_prints_the_summary(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["import", "claw-eval", str(CHECKOUT), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "5 task(s): 2 full, 1 partial, 2 skipped" in result.output
    missing = CliRunner().invoke(app, ["import", "claw-eval", str(tmp_path / "nope"), "--out", str(tmp_path)])
    assert missing.exit_code == 2


def test_service_error_rate_becomes_a_fault_plan_the_reference_survives(imported: dict[str, Any]) -> None:
    spec = imported["specs"]["CE03_outage_escalation"]  # its gmail service sets ERROR_RATE 0.5
    assert spec.faults is not None
    (rule,) = spec.faults.rules
    assert (rule.app, rule.rate_429, rule.rate_500, rule.slow) == ("mail", 0.175, 0.175, 0.15)
    episode = run_episode(Env(spec), OraclePolicy(spec))
    assert episode.result.score == 1.0 and episode.faults >= 1 and episode.robustness in (None, 1.0)
    assert imported["specs"]["CE02_vpn_ticket_triage"].faults is None
