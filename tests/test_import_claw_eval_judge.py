"""Claw-Eval graders that ask their LLM judge: run in the sandbox, the judge asked through the host's judge channel.

The judge here is a stand-in: the loopback OpenAI-compatible HTTP server of tests/support/fake_openai_server.py
(a real server on 127.0.0.1, reached by the same HTTP backend as a `vllm serve` judge), answering from a rule over
the conversation it is shown. CE18 is CE16's booking task with a grader in Claw-Eval's form whose explanation
part is its judge's score; the fixture's `src/claw_eval/graders/llm_judge.py` is our small stand-in of Claw-Eval's
judge module (the real one is carried from a checkout, below with CLAW_EVAL_CHECKOUT).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.checks.judge import (
    JUDGE_MAX_TOKENS,
    JUDGE_MAX_TOKENS_ENV,
    JUDGE_MODEL_ENV,
    JUDGE_URL_ENV,
    judge_backend,
    judging,
)
from coworkenv.cli import app as cli_app
from coworkenv.importers import FULL_JUDGE, import_checkout
from coworkenv.loading import load_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn
from coworkenv.validate import validate_spec
from tests.support.fake_openai_server import FakeOpenAIServer

FIXTURES = Path(__file__).parent / "fixtures" / "claw_eval_like"
JUDGED = "CE18_book_free_slot_judged"
PEER = "CE16_book_free_slot_graded"  # CE18's grader loads CE16's and judges its reply part
CHECKOUT = os.environ.get("CLAW_EVAL_CHECKOUT")


def _conversation(body: dict[str, Any]) -> str:
    user = body["messages"][-1]["content"]
    found = re.search(r"## Conversation\n(.*?)\n\n## ", user, re.S)
    return found.group(1) if found else ""


ASKED: list[dict[str, Any]] = []  # the request bodies the stand-in judge received


def explains_the_slot(body: dict[str, Any]) -> dict[str, Any]:
    """The stand-in judge's rule: 1.0 when the reply says the slot is free and names 14:30, else 0.0."""
    ASKED.append(body)
    said = _conversation(body).lower()
    score = 1.0 if "free" in said and "14:30" in said else 0.0
    return {"content": f"```json\n{json.dumps({'score': score, 'reasoning': 'stand-in judge'})}\n```"}


@pytest.fixture(scope="module")
def judge_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=explains_the_slot) as server:
        yield server


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("judged")
    shutil.copytree(FIXTURES / "src", root / "src")
    for task_id in (PEER, JUDGED):
        shutil.copytree(FIXTURES / "tasks" / task_id, root / "tasks" / task_id)
    offline = {r.task_id: r for r in import_checkout(root, root / "offline")}
    judged = {r.task_id: r for r in import_checkout(root, root / "judged", judge=True)}
    assert offline[PEER].status == judged[PEER].status == "full"  # a grader that asks no judge: as before
    return {"root": root, "offline": offline[JUDGED], "judged": judged[JUDGED],
            "spec": load_spec(root / "judged" / f"{JUDGED}.json")}


def _score(spec: EnvSpec, steps: list[dict[str, Any]]) -> Any:
    turn = ReferenceTurn(steps=[ReferenceStep.model_validate(s) for s in steps])
    return run_episode(Env(spec), OraclePolicy(spec, reference=[turn])).result


def test_without_a_judge_the_task_stays_partial_and_the_report_says_why(imported: dict[str, Any]) -> None:
    report = imported["offline"]
    assert report.status == "partial"
    (grader,) = [x for x in report.left_out if x["what"] == "grader.py"]
    assert "the import has none" in grader["why"] and "--judge" in grader["why"] and grader["affects_score"]
    spec = load_spec(imported["root"] / "offline" / f"{JUDGED}.json")
    assert [c.id for c in spec.checks] == ["own_calendar", "attendee_calendars", "booked", "safety_0_calendar_delete_event"]
    assert not any(getattr(c.rule, "judge", False) for c in spec.checks)


def test_with_a_judge_the_grader_is_run_and_the_task_is_full_judge(imported: dict[str, Any]) -> None:
    report, spec = imported["judged"], imported["spec"]
    assert report.status == FULL_JUDGE == "full (judge)", report.left_out
    assert not [x for x in report.left_out if x["affects_score"]]
    (check,) = spec.checks
    assert check.rule.kind == "python" and check.rule.judge  # only this check gets the judge channel
    assert "judge" in next(n for n in report.notes if n.startswith("scored by"))
    # A check that asks no judge dumps without the field (spec ids of every other spec stay as they were).
    assert "judge" not in load_spec(FIXTURES.parent.parent.parent / "coworkenv" / "examples"
                                    / "triage_escalation_declared_tools.json").model_dump_json()


def test_the_grader_asks_the_configured_judge_and_scores_by_its_answer(imported: dict[str, Any],
                                                                        judge_server: FakeOpenAIServer) -> None:
    spec = imported["spec"]
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    terse = [*reference[:-1], {"say": "Booked it at 14:30."}]  # the judge's rule: no reason given
    ASKED.clear()
    with judging(judge_backend(f"{judge_server.url}/v1", "stand-in-judge")):
        assert _score(spec, reference).score == 1.0
        result = _score(spec, terse)
        assert result.score == pytest.approx(0.8 * 0.8 + 0.2), result.checks[0].reason  # 0.2 of completion lost
        assert _score(spec, [{"say": "Okay."}]).score == pytest.approx(0.2)  # nothing booked, nothing explained
    bodies = list(ASKED)
    assert len(bodies) == 3  # one request per episode, with the host's model, not the grader's
    assert all(b["model"] == "stand-in-judge" and b["temperature"] == 0.0 for b in bodies)
    assert [m["role"] for m in bodies[0]["messages"]] == ["system", "user"]
    assert "Booked the project sync 14:30-15:30 UTC" in bodies[0]["messages"][1]["content"]


def test_a_judged_check_without_a_judge_or_with_a_failing_one_is_a_check_error(
        imported: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    spec = imported["spec"]
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    monkeypatch.delenv(JUDGE_URL_ENV, raising=False)
    result = _score(spec, reference)
    assert result.checks[0].error and JUDGE_URL_ENV in result.checks[0].reason, result.checks[0].reason
    with FakeOpenAIServer(fault_rate=1.0, fault_kinds=("500",)) as failing, \
            judging(judge_backend(f"{failing.url}/v1", "stand-in-judge")):
        result = _score(spec, reference)
    # the judge's failure is not a score of 0: the check says the judge did not answer
    assert result.checks[0].error and "judge did not answer" in result.checks[0].reason, result.checks[0].reason


def test_the_judge_is_read_from_the_environment(imported: dict[str, Any], judge_server: FakeOpenAIServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    spec = imported["spec"]
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    monkeypatch.setenv(JUDGE_URL_ENV, f"{judge_server.url}/v1")
    monkeypatch.setenv(JUDGE_MODEL_ENV, "stand-in-judge")
    assert _score(spec, reference).score == 1.0


def test_the_judge_answer_length_is_the_hosts_and_a_bad_setting_is_a_check_error(
        imported: dict[str, Any], judge_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = imported["spec"]
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    ASKED.clear()
    with judging(judge_backend(f"{judge_server.url}/v1", "stand-in-judge")):
        assert _score(spec, reference).score == 1.0
        monkeypatch.setenv(JUDGE_MAX_TOKENS_ENV, "64")
        assert _score(spec, reference).score == 1.0
        for bad in ("0", "many"):
            monkeypatch.setenv(JUDGE_MAX_TOKENS_ENV, bad)
            (check,) = _score(spec, reference).checks
            assert check.error and JUDGE_MAX_TOKENS_ENV in check.reason and repr(bad) in check.reason, check.reason
    assert [b["max_tokens"] for b in ASKED] == [JUDGE_MAX_TOKENS, 64]  # a bad setting asks nothing
    # A judge URL in the environment without its model: the check says so; scoring goes on.
    monkeypatch.delenv(JUDGE_MAX_TOKENS_ENV)
    monkeypatch.setenv(JUDGE_URL_ENV, f"{judge_server.url}/v1")
    monkeypatch.delenv(JUDGE_MODEL_ENV, raising=False)
    (check,) = _score(spec, reference).checks
    assert check.error and "needs a model name" in check.reason, check.reason


def test_the_cli_imports_with_a_judge_and_refuses_one_that_is_not_there(
        imported: dict[str, Any], judge_server: FakeOpenAIServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(JUDGE_URL_ENV, raising=False)
    root = imported["root"]
    runner = CliRunner()
    result = runner.invoke(cli_app, ["import", "claw-eval", str(root), "--out", str(tmp_path / "a"),
                                     "--judge", f"{judge_server.url}/v1", "--judge-model", "stand-in-judge"])
    assert result.exit_code == 0, result.output
    assert "2 task(s): 1 full, 1 full (judge), 0 partial, 0 skipped" in result.output
    assert json.loads((tmp_path / "a" / "import_report.json").read_text())["judge"] is True
    result = runner.invoke(cli_app, ["import", "claw-eval", str(root), "--out", str(tmp_path / "b")])
    assert result.exit_code == 0 and "2 task(s): 1 full, 1 partial, 0 skipped" in result.output
    assert "full (judge)" not in result.output  # no judge: the count of judged tasks is not shown
    dead = runner.invoke(cli_app, ["import", "claw-eval", str(root), "--out", str(tmp_path / "c"),
                                   "--judge", "http://127.0.0.1:9/v1", "--judge-model", "m"])
    assert dead.exit_code == 2 and "nothing listens" in dead.output
    nameless = runner.invoke(cli_app, ["import", "claw-eval", str(root), "--out", str(tmp_path / "d"),
                                       "--judge", f"{judge_server.url}/v1"])
    assert nameless.exit_code == 2 and "needs a model name" in nameless.output


@pytest.mark.parametrize(("change", "why"), [
    (lambda path: path.unlink(), "src/claw_eval/graders/llm_judge.py) is not in the checkout"),
    (lambda path: path.write_text(path.read_text().replace("import json\n", "import json\nimport numpy\n")),
     "imports numpy, which the sandboxed check does not provide"),
])
def test_a_judge_module_the_sandbox_cannot_run_leaves_the_task_partial(imported: dict[str, Any], tmp_path: Path,
                                                                       change: Any, why: str) -> None:
    shutil.copytree(imported["root"] / "src", tmp_path / "src")
    shutil.copytree(imported["root"] / "tasks", tmp_path / "tasks")
    change(tmp_path / "src" / "claw_eval" / "graders" / "llm_judge.py")
    report = {r.task_id: r for r in import_checkout(tmp_path, tmp_path / "out", judge=True)}[JUDGED]
    assert report.status == "partial"
    (grader,) = [x for x in report.left_out if x["what"] == "grader.py"]
    assert why in grader["why"], grader


@pytest.mark.skipif(not CHECKOUT, reason="set CLAW_EVAL_CHECKOUT to a Claw-Eval checkout")
def test_every_judged_grader_of_the_checkout_runs_with_a_judge(tmp_path: Path) -> None:
    """With a judge, each task whose grader asks it imports `full (judge)`, and a noop episode of each is scored by
    its grader through Claw-Eval's own llm_judge.py and the judge channel, with no check error."""
    assert CHECKOUT is not None
    offline = {r.task_id: r.status for r in import_checkout(Path(CHECKOUT), tmp_path / "offline")}
    reports = import_checkout(Path(CHECKOUT), tmp_path / "judged", judge=True)
    judged = [r.task_id for r in reports if r.status == FULL_JUDGE]
    assert judged and all(offline[t] in ("partial", "skipped") for t in judged)
    assert all(r.status == offline[r.task_id] for r in reports if r.status != FULL_JUDGE)
    with FakeOpenAIServer(responder=lambda body: {"content": '{"score": 0.5, "reasoning": "stand-in"}'}) as server, \
            judging(judge_backend(f"{server.url}/v1", "stand-in-judge")):
        for task_id in judged:
            spec = load_spec(tmp_path / "judged" / f"{task_id}.json")
            result = _score(spec, [{"say": "Done."}])
            assert not result.checks[0].error, (task_id, result.checks[0].reason)
        assert server.stats()["requests"] > 0


@pytest.mark.slow
def test_a_judged_spec_validates_with_a_judge_as_its_unjudged_twin_does(imported: dict[str, Any],
                                                                        judge_server: FakeOpenAIServer) -> None:
    """The validator's sandbox probes (repeats, seeds, clocks, paraphrases) run a judged check with the judge
    channel too: with a judge that answers by a fixed rule, CE18 passes them, as CE16 (no judge) does."""
    with judging(judge_backend(f"{judge_server.url}/v1", "stand-in-judge")):
        validation = validate_spec(imported["spec"], policy="report")
    assert validation.passed and validation.stage == "solvable", validation.findings
    assert {f.gate for f in validation.findings} <= {"noop", "mutations"}, validation.findings


def test_a_judge_urls_credentials_never_reach_a_checks_reason_or_the_cli(
        imported: dict[str, Any], judge_server: FakeOpenAIServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A judge URL carries its credentials (`user:password@`, a gateway's `?api_key=`): set without its model, the
    check's reason quoted the whole URL, and a check's reason is the verifier's explanation, a log line and a
    dataset row. It names the server only, as every other LLM error does."""
    spec = imported["spec"]
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    password, key = "pw-" + uuid.uuid4().hex, "key-" + uuid.uuid4().hex
    host = judge_server.url.removeprefix("http://")
    url = f"http://judge-user:{password}@{host}/v1?api_key={key}"
    monkeypatch.setenv(JUDGE_URL_ENV, url)
    monkeypatch.delenv(JUDGE_MODEL_ENV, raising=False)
    (check,) = _score(spec, reference).checks
    assert check.error and "needs a model name" in check.reason and host in check.reason, check.reason
    assert password not in check.reason and key not in check.reason, check.reason
    monkeypatch.delenv(JUDGE_URL_ENV)
    nameless = CliRunner().invoke(cli_app, ["import", "claw-eval", str(imported["root"]), "--out",
                                            str(tmp_path / "out"), "--judge", url])
    assert nameless.exit_code == 2 and "needs a model name" in nameless.output, nameless.output
    assert password not in nameless.output and key not in nameless.output, nameless.output
