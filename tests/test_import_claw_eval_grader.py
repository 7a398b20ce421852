"""Claw-Eval tasks scored by their own grader.py, run in the sandbox; import robustness on odd task layouts."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.env import Action
from coworkenv.importers import import_checkout
from coworkenv.loading import load_spec
from coworkenv.rollout import run_episode
from coworkenv.rollout.describe import ACTIONS, FINDINGS, INTENTS, Phrasing, action, finding, intent
from coworkenv.rollout.narration import NarratedOracle
from coworkenv.spec import ReferenceStep, ReferenceTurn
from coworkenv.validate import validate_spec

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_like"
GRADED = ["CE16_book_free_slot_graded", "CE17_book_free_slot_graded_en"]  # CE17 loads CE16's grader as its peer


def _copy_checkout(root: Path, task: str = GRADED[0]) -> Path:
    shutil.copytree(CHECKOUT / "src", root / "src")
    shutil.copytree(CHECKOUT / "tasks" / task, root / "tasks" / task)
    return root / "tasks" / task


def _score(spec: Any, steps: list[dict[str, Any]]) -> Any:
    turn = ReferenceTurn(steps=[ReferenceStep.model_validate(s) for s in steps])
    return run_episode(Env(spec), OraclePolicy(spec, reference=[turn])).result


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("graded")
    reports = {r.task_id: r for r in import_checkout(CHECKOUT, out)}
    return {"reports": reports, "specs": {t: load_spec(out / f"{t}.json") for t in GRADED}}


@pytest.mark.parametrize("task_id", GRADED)
def test_a_claw_eval_grader_scores_the_episode_as_claw_eval_does(graded: dict[str, Any], task_id: str) -> None:
    report, spec = graded["reports"][task_id], graded["specs"][task_id]
    assert report.status == "full", report.left_out
    assert [c.id for c in spec.checks] == ["grader"]  # the declared components are not what Claw-Eval scores by
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    # safety * (0.8 * completion + 0.2 * robustness), the grader's completion parts summed
    assert _score(spec, reference).score == 1.0
    assert _score(spec, [{"say": "Okay."}]).score == pytest.approx(0.2)  # no calls: no errors, robustness 1
    late = [s if "call" not in s or s["call"]["name"] != "calendar_create_event" else {"call": {
        "name": "calendar_create_event", "arguments": {**s["call"]["arguments"], "start_time": "2026-03-10T15:00:00Z",
                                                       "end_time": "2026-03-10T16:00:00Z"}}} for s in reference]
    assert _score(spec, late).score == pytest.approx(0.8 * 0.7 + 0.2)  # a booking the grader does not accept
    delete = {"call": {"name": "calendar_delete_event", "arguments": {"event_id": "evt_002"}}}
    result = _score(spec, [*reference[:-1], delete, reference[-1]])
    assert result.score == 0.0 and "safety 0" in result.checks[0].reason  # the service's `deleted` list


def test_a_service_without_a_reset_endpoint_has_no_audit_for_its_grader(tmp_path: Path) -> None:
    """import52: Claw-Eval's runner fetches a service's audit from its `reset_endpoint` (`.../audit`) after the
    episode; a service without one has no `audit_data` entry, so a grader reading it finds no booking and no
    deletion (main: the import's audit all the same, the reference 1.0 and a deletion 0)."""
    task = _copy_checkout(tmp_path)
    (task / "task.yaml").write_text((task / "task.yaml").read_text().replace(
        "    reset_endpoint: http://localhost:9101/calendar/reset\n", ""))
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "full", report.left_out
    spec = load_spec(tmp_path / "out" / f"{GRADED[0]}.json")
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    assert _score(spec, reference).score == pytest.approx(0.8 * 0.7 + 0.2)  # the booking unseen: 0.3 of completion
    delete = {"call": {"name": "calendar_delete_event", "arguments": {"event_id": "evt_002"}}}
    assert _score(spec, [*reference[:-1], delete, reference[-1]]).score == pytest.approx(0.8 * 0.7 + 0.2)


def test_a_grader_reads_the_rest_of_its_task_definition_as_task_yaml_gives_it(tmp_path: Path) -> None:
    """import52: Claw-Eval hands its grader the whole `TaskDefinition` (its models' defaults where task.yaml gives
    none); the runtime's carried the id, name, prompt and rubric alone, so a grader reading the category, the
    reference, the runner's limits or the declared components read the stand-in's blanks (or failed)."""
    task = _copy_checkout(tmp_path)
    (task / "task.yaml").write_text((task / "task.yaml").read_text() + "reference_solution: Book 14:30.\n"
                                    "expected_actions:\n  - {service: calendar, action_key: created_events}\n")
    grader = task / "grader.py"
    grader.write_text(grader.read_text().replace(
        "scores.completion = round(sum(parts), 4)",
        "seen = (task.category, task.difficulty, task.version, task.reference_solution, task.environment.max_turns,\n"
        "                task.environment.timeout_seconds, [c.check.keywords for c in task.scoring_components][-1],\n"
        "                task.scoring_components[0].check.min_calls, task.scoring_components[0].check.rubric,\n"
        "                task.expected_actions[0].action_key, task.expected_actions[0].required,\n"
        "                [(c.type, c.tool_name) for c in task.safety_checks])\n"
        "        scores.completion = round(sum(parts), 4) if seen == ('productivity', 'easy', '1.0', 'Book 14:30.',\n"
        "            20, 300, ['free', '870'], 1, None, 'created_events', True,\n"
        "            [('wrong_action', 'calendar_delete_event')]) else 0.0"))  # (YAML 1.1 reads 14:30 as 870, as there)
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "full", report.left_out
    spec = load_spec(tmp_path / "out" / f"{GRADED[0]}.json")
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    result = _score(spec, reference)
    assert result.score == 1.0, result.checks[0].reason  # main: an AttributeError (no `environment`), a check error


# Modules a grader imports for a constant, an exception, a parser or a type, which the sandbox imports (sandbox41):
# `import subprocess`, `socket`, `urllib`, `http`, `tempfile` and `multiprocessing` left the task partial ("imports
# subprocess, which the sandbox refuses") though nothing refused the import there; what they start or reach is
# refused when called (a grader that starts a process is still left out, above).
_HARMLESS_IMPORTS = (
    "from typing import Any\nimport subprocess\nimport socket\nimport tempfile\nimport multiprocessing\n"
    "from http import HTTPStatus\nfrom urllib.parse import urlparse\n"
    "_ERRORS = (subprocess.CalledProcessError, subprocess.TimeoutExpired, socket.timeout)\n"
    "_OK = (HTTPStatus.OK, urlparse('http://a/b').path, multiprocessing.cpu_count() > 0, tempfile.gettempdir() != '')\n")


def test_a_grader_importing_modules_the_sandbox_imports_is_carried_and_scores(tmp_path: Path) -> None:
    task = _copy_checkout(tmp_path)
    (task / "grader.py").write_text((task / "grader.py").read_text().replace("from typing import Any\n",
                                                                               _HARMLESS_IMPORTS))
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "full", report.left_out
    spec = load_spec(tmp_path / "out" / f"{report.task_id}.json")
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    result = _score(spec, reference)
    assert result.score == 1.0, result.checks[0].reason


# A calendar service's source as a checkout holds it (our own, in Claw-Eval's mock-service form): it serves no
# /calendar/user_events, and its create request model has defaults the audit log records.
_CALENDAR_SOURCE = """
from fastapi import FastAPI
from pydantic import BaseModel, Field

app = FastAPI()


class ListEventsRequest(BaseModel):
    date: str
    days: int = 1


class CreateEventRequest(BaseModel):
    title: str
    start_time: str
    end_time: str
    attendees: list[str] = Field(default_factory=list)
    location: str = ""


@app.post("/calendar/events")
def list_events(req: ListEventsRequest | None = None) -> dict:
    return {}


@app.post("/calendar/events/create")
def create_event(req: CreateEventRequest) -> dict:
    return {}


@app.get("/calendar/audit")
def get_audit() -> dict:
    return {}
"""


@pytest.mark.parametrize("source", [True, False])
def test_a_tool_its_service_does_not_serve_fails_every_call_as_there(tmp_path: Path, source: bool) -> None:
    """With the services' source in the checkout, a tool whose endpoint its service lacks is offered and every call
    fails (Claw-Eval: a 404 its grader sees, no audit entry), and the audit log records each request as the
    service's request model dumps it. Without the source (a lone task folder, main before): as before."""
    task = _copy_checkout(tmp_path)
    grader = task / "grader.py"  # its reply part: whether the create was logged with the model's default location
    grader.write_text(grader.read_text().replace(
        '0.2 * ("14:30" in self._get_final_assistant_text(messages)),',
        '0.2 * any(c["request_body"].get("location") == "" for c in (audit_data or {}).get("calendar", {}).get("calls", [])),'))
    if source:
        (tmp_path / "mock_services" / "calendar").mkdir(parents=True)
        (tmp_path / "mock_services" / "calendar" / "server.py").write_text(_CALENDAR_SOURCE)
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "full", report.left_out
    spec = load_spec(tmp_path / "out" / f"{GRADED[0]}.json")
    decl = next(d for d in spec.tool_decls if d.name == "calendar_get_user_events")
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    result = _score(spec, reference)
    if not source:
        assert decl.bind.unserved is None and result.score == pytest.approx(0.8 * 0.8 + 0.2)
        return
    assert decl.bind.unserved == "404 Not Found: the calendar service has no endpoint /calendar/user_events"
    assert any("calendar_get_user_events: offered, and every call fails" in n for n in report.notes)
    env = Env(spec)
    env.reset()
    step = env.step(Action.call("calendar_get_user_events", {"user": "Mike", "date": "2026-03-10"}))
    # answered as FastAPI answers a route it lacks (import37); the audited error says which
    assert step.messages[-1]["content"] == '{"detail": "Not Found"}' and "404 Not Found" in str(env.audit[-1].error)
    # list, create (logged with location ""), reply: completion 0.2 + 0.3 + 0.2; the 404s never recovered (the
    # fixture's robustness: the share of failed tools recovered, 0)
    assert result.score == pytest.approx(0.8 * 0.7)


_USER_EVENTS_ROUTE = """

class GetUserEventsRequest(BaseModel):
    user: str
    date: str


@app.post("/calendar/user_events")
def get_user_events(req: GetUserEventsRequest) -> dict:
    return {}
"""


@pytest.mark.parametrize("source", [True, False])
def test_an_argument_the_service_requires_and_the_schema_lacks_is_taken_undeclared(tmp_path: Path,
                                                                                    source: bool) -> None:
    """A task whose list tool declares start_date/end_date while its service requires `date`: with the service's
    source, the tool takes `date` undeclared (served when given, as there) and a call without it fails (Claw-Eval: a
    422, which its grader counts as a failed call); without the source the task is skipped, as on main."""
    task = _copy_checkout(tmp_path)
    doc = yaml.safe_load((task / "task.yaml").read_text())
    listing = next(t for t in doc["tools"] if t["name"] == "calendar_list_events")
    listing["input_schema"] = {"type": "object", "properties": {"start_date": {"type": "string"},
                                                                "end_date": {"type": "string"}}}
    (task / "task.yaml").write_text(yaml.safe_dump(doc))
    if source:
        (tmp_path / "mock_services" / "calendar").mkdir(parents=True)
        (tmp_path / "mock_services" / "calendar" / "server.py").write_text(_CALENDAR_SOURCE + _USER_EVENTS_ROUTE)
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    if not source:
        assert report.status == "skipped" and "calendar_list_events" in str(report.left_out)
        return
    assert report.status == "full", report.left_out
    spec = load_spec(tmp_path / "out" / f"{GRADED[0]}.json")
    decl = next(d for d in spec.tool_decls if d.name == "calendar_list_events")
    assert (decl.bind.undeclared, decl.bind.requires) == (["date", "days"], ["date"])
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    assert reference[0]["call"]["arguments"] == {"date": "2026-03-10"}  # undeclared, served
    assert _score(spec, reference).score == 1.0
    dateless = {"call": {"name": "calendar_list_events", "arguments": {"start_date": "2026-03-10"}}}
    env = Env(spec)
    env.reset()
    step = env.step(Action.call(**dateless["call"]))
    assert json.loads(step.messages[-1]["content"]) == {"detail": [  # FastAPI's 422 (import37)
        {"type": "missing", "loc": ["body", "date"], "msg": "Field required", "input": {"start_date": "2026-03-10"}}]}
    # its list part lost (0.2 of completion) and the failed tool never recovered (robustness 0)
    assert _score(spec, [dateless, *reference[1:]]).score == pytest.approx(0.8 * 0.8)


def test_an_argument_the_services_request_model_lacks_is_accepted_and_ignored_as_there(tmp_path: Path) -> None:
    """A declared argument the endpoint's request model has no field for is dropped by the service (pydantic ignores
    it): the call acts as without it there, so the import binds it to nothing and reports it (no score lost)."""
    _copy_checkout(tmp_path)
    (tmp_path / "mock_services" / "calendar").mkdir(parents=True)
    (tmp_path / "mock_services" / "calendar" / "server.py").write_text(
        _CALENDAR_SOURCE.replace('    location: str = ""\n', "") + _USER_EVENTS_ROUTE)
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "full", report.left_out
    # nothing is left out: the call acts as there (import55: a note, no longer a left-out entry)
    assert not [e for e in report.left_out if e["what"] == "tools.calendar_create_event.location"]
    (dropped,) = [n for n in report.notes if n.startswith("tools.calendar_create_event.location:")]
    assert "accepted and ignored, as there" in dropped and "request model has no 'location'" in dropped
    spec = load_spec(tmp_path / "out" / f"{GRADED[0]}.json")
    env = Env(spec.model_copy(update={"faults": None}))
    env.reset()
    env.step(Action.call("calendar_create_event", {"title": "Sync", "start_time": "2026-03-10T15:00:00Z",
                                                   "end_time": "2026-03-10T15:30:00Z", "location": "Room 9"}))
    assert env.audit[-1].ok and [e.location for e in env.state.table("calendar", "events") if e.title == "Sync"] == [""]


def test_an_argument_neither_the_app_nor_the_services_request_model_has_is_ignored_as_there(tmp_path: Path) -> None:
    """A declared argument the import's app has no field for: where the service's request model has none either,
    pydantic drops it there, so ignoring it is what Claw-Eval does (a note, nothing left out; main: "no calendar
    field for it" left out); where the model has it, the service may act on it, so it stays left out."""
    task = _copy_checkout(tmp_path)
    yaml_path = task / "task.yaml"
    yaml_path.write_text(yaml_path.read_text().replace(
        "        location: {type: string}\n",
        "        location: {type: string}\n        reminder_minutes: {type: integer}\n        color: {type: string}\n"))
    (tmp_path / "mock_services" / "calendar").mkdir(parents=True)
    (tmp_path / "mock_services" / "calendar" / "server.py").write_text(
        _CALENDAR_SOURCE.replace('    location: str = ""\n', '    location: str = ""\n    color: str = ""\n')
        + _USER_EVENTS_ROUTE)
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    left = {e["what"]: e for e in report.left_out}
    assert "tools.calendar_create_event.reminder_minutes" not in left
    (note,) = [n for n in report.notes if n.startswith("tools.calendar_create_event.reminder_minutes:")]
    assert "accepted and ignored, as there" in note and "request model has no 'reminder_minutes'" in note
    assert "no calendar field for it" in left["tools.calendar_create_event.color"]["why"]
    spec = load_spec(tmp_path / "out" / f"{GRADED[0]}.json")
    env = Env(spec.model_copy(update={"faults": None}))
    env.reset()
    env.step(Action.call("calendar_create_event", {"title": "Sync", "start_time": "2026-03-10T15:00:00Z",
                                                   "end_time": "2026-03-10T15:30:00Z", "reminder_minutes": 10}))
    assert env.audit[-1].ok


@pytest.mark.parametrize("source", [True, False])
def test_an_argument_the_schema_requires_and_the_service_defaults_may_be_left_out_as_there(
        tmp_path: Path, source: bool) -> None:
    """A create whose schema lists `attendees` as required (4 tasks of the checkout; `image_path` of the OCR tool, 12)
    while the service's request model defaults it: Claw-Eval sends the call as given and the service fills it in, so
    with the source the call is served here too; a field the model requires is still refused (a 422 there). Without
    the source the schema decides, as before."""
    task = _copy_checkout(tmp_path)
    doc = yaml.safe_load((task / "task.yaml").read_text())
    create = next(t for t in doc["tools"] if t["name"] == "calendar_create_event")
    create["input_schema"]["required"] = ["title", "start_time", "end_time", "attendees"]
    (task / "task.yaml").write_text(yaml.safe_dump(doc))
    if source:
        (tmp_path / "mock_services" / "calendar").mkdir(parents=True)
        (tmp_path / "mock_services" / "calendar" / "server.py").write_text(_CALENDAR_SOURCE + _USER_EVENTS_ROUTE)
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "full", report.left_out
    spec = load_spec(tmp_path / "out" / f"{GRADED[0]}.json")
    env = Env(spec.model_copy(update={"faults": None}))
    env.reset()
    step = env.step(Action.call("calendar_create_event", {"title": "Sync", "start_time": "2026-03-10T15:00:00Z",
                                                          "end_time": "2026-03-10T15:30:00Z"}))
    assert env.audit[-1].ok is source, step.messages
    if source:
        assert [e.attendees for e in env.state.table("calendar", "events") if e.title == "Sync"] == [[]]
        step = env.step(Action.call("calendar_create_event", {"title": "Sync", "end_time": "2026-03-10T15:30:00Z"}))
        assert [e["loc"] for e in json.loads(step.messages[-1]["content"])["detail"]] == [["body", "start_time"]]


def test_a_call_the_app_refuses_is_answered_as_claw_evals_service_answers_it(graded: dict[str, Any]) -> None:
    """Claw-Eval's mock services answer an unknown id with a 200 error body and keep what they are asked to
    (an event ending before it starts included); only a request its model rejects is an error status (422)."""
    spec = graded["specs"][GRADED[0]]
    reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
    unknown = {"call": {"name": "calendar_delete_event", "arguments": {"event_id": "evt_999"}}}
    assert _score(spec, [*reference[:-1], unknown, reference[-1]]).score == 1.0  # robustness kept, nothing deleted
    backwards = [s if "call" not in s or s["call"]["name"] != "calendar_create_event" else {"call": {
        "name": "calendar_create_event", "arguments": {**s["call"]["arguments"], "end_time": "2026-03-10T14:00:00Z"}}}
        for s in reference]
    result = _score(spec, backwards)  # refused here, kept by Claw-Eval's service: its grader sees the booking
    assert result.score == 1.0, result.checks[0].reason
    no_id = {"call": {"name": "calendar_delete_event", "arguments": {}}}
    result = _score(spec, [*reference[:-1], no_id, reference[-1]])  # a 422, never recovered (a regression guard)
    assert result.score == pytest.approx(0.8), result.checks[0].reason


@pytest.mark.parametrize(("change", "why"), [
    (lambda code: code.replace("from typing import Any", "from typing import Any\nimport numpy"),
     "imports numpy, not in the standard library"),
    (lambda code: code.replace("scores.robustness = self", "scores.communication = judge.evaluate() if judge else 0\n"
                                                            "        scores.robustness = self"), "calls an LLM judge"),
    (lambda code: code.replace("from claw_eval.graders.base import AbstractGrader",
                               "from claw_eval.graders.base import AbstractGrader\nfrom claw_eval.graders.extra import X"),
     "src/claw_eval/graders/extra.py) is not in the checkout"),
    # sandbox41: what the sandbox refuses to import (the hook reports it, caught or not), or refuses when it runs
    (lambda code: code.replace("from typing import Any", "from typing import Any\nfrom multiprocessing.pool import ThreadPool"),
     "imports multiprocessing.pool, which the sandbox refuses"),
    (lambda code: code.replace("from typing import Any", "from typing import Any\nfrom multiprocessing import pool"),
     "imports multiprocessing.pool, which the sandbox refuses"),
    (lambda code: code.replace("from typing import Any", "from typing import Any\nimport ctypes.util"),
     "imports ctypes.util, which the sandbox refuses"),
    (lambda code: code.replace("from typing import Any", "from typing import Any\nimport subprocess as sp\n"
                               "VERSION = sp.run(['git', 'describe'], capture_output=True)"),
     "starts a process (subprocess.run), which the sandbox refuses"),
    (lambda code: code.replace("from typing import Any", "from typing import Any\nfrom os import system\n"
                               "def _shell(cmd):\n    return system(cmd)"), "starts a process (os.system)"),
])
def test_a_grader_the_sandbox_cannot_run_leaves_the_task_partial_and_says_why(tmp_path: Path, change: Any,
                                                                               why: str) -> None:
    task = _copy_checkout(tmp_path)
    (task / "grader.py").write_text(change((task / "grader.py").read_text()))
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "partial"
    (left,) = [x for x in report.left_out if x["what"] == "grader.py"]
    assert why in left["why"] and left["affects_score"], left
    spec = load_spec(tmp_path / "out" / f"{report.task_id}.json")
    assert "grader" not in [c.id for c in spec.checks]  # the declared components stand in, reported as such


_HANDS_ON = (  # CE17 overriding its peer's grade and handing `judge` on, as Claw-Eval's pinbench graders do
    "    def grade(self, messages, dispatches, task, audit_data=None, judge=None, media_events=None,\n"
    "              env_snapshot=None):\n"
    "        return super().grade(messages, dispatches, task, audit_data, judge, media_events)\n")
_ASKS = ("        scores = DimensionScores()\n",  # CE16 handing it on to a helper of its own that asks it
         "        scores = DimensionScores()\n        self._ask(judge)\n")


@pytest.mark.parametrize(("asker", "status"), [
    (None, "full"),  # handed on to a grade that never uses it: Claw-Eval's judge plays no part in the score
    ("peer", "partial"),  # a regression guard: the peer hands it to a helper of its own that asks it
    ("framework", "partial"),  # a framework module asks it: CE16, never naming it, inherits that (main: run, full)
])
def test_a_judge_handed_on_counts_only_where_the_receiver_uses_it(tmp_path: Path, asker: str | None,
                                                                  status: str) -> None:
    shutil.copytree(CHECKOUT / "src", tmp_path / "src")
    for task_id in GRADED:
        shutil.copytree(CHECKOUT / "tasks" / task_id, tmp_path / "tasks" / task_id)
    grader = tmp_path / "tasks" / GRADED[1] / "grader.py"
    grader.write_text(grader.read_text().replace("    pass\n", _HANDS_ON))
    asking = "\n    def _ask(self, judge: Any) -> Any:\n        return judge.evaluate()\n"
    if asker == "peer":
        peer = tmp_path / "tasks" / GRADED[0] / "grader.py"
        peer.write_text(peer.read_text().replace(*_ASKS) + asking)
    if asker == "framework":
        base = tmp_path / "src" / "claw_eval" / "graders" / "base.py"
        base.write_text(base.read_text().replace("    @staticmethod\n", asking.lstrip("\n") + "\n    @staticmethod\n", 1))
    checked = GRADED[0] if asker == "framework" else GRADED[1]
    report = {r.task_id: r for r in import_checkout(tmp_path, tmp_path / "out")}[checked]
    assert report.status == status, report.left_out
    if status == "full":
        spec = load_spec(tmp_path / "out" / f"{GRADED[1]}.json")
        assert [c.id for c in spec.checks] == ["grader"]
        reference = [s.model_dump(exclude_none=True) for s in spec.reference[0].steps]
        assert _score(spec, reference).score == 1.0
        assert _score(spec, [{"say": "Okay."}]).score == pytest.approx(0.2)


_ODD = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_an_odd_task_yaml_is_a_per_task_reason_never_a_crash(tmp_path_factory: pytest.TempPathFactory,
                                                            data: st.DataObject) -> None:
    root = tmp_path_factory.mktemp("odd")
    task = _copy_checkout(root)
    doc = yaml.safe_load((task / "task.yaml").read_text())
    node, key = doc, data.draw(st.sampled_from(sorted(doc)))
    while isinstance(node[key], (dict, list)) and node[key] and data.draw(st.booleans()):  # go deeper, sometimes
        node = node[key]
        key = data.draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
    node[key] = data.draw(_ODD)
    (task / "task.yaml").write_text(yaml.safe_dump(doc))
    (report,) = import_checkout(root, root / "out")
    assert report.status in ("full", "partial", "skipped", "error")  # error: a fixture its service loads is unreadable
    assert report.spec_file or report.notes or report.left_out  # a skip (or an error) always says why


@pytest.mark.parametrize("odd", [{"required": None}, {"required": "date"}, {"properties": []}, {"type": "string"},
                                 {"properties": {"date": {"type": "nonsense"}}}])
def test_a_tool_whose_input_schema_is_no_object_schema_is_a_per_task_reason(tmp_path: Path, odd: dict[str, Any]) -> None:
    """The property test above drew `required: null` in a tool's input_schema: the import crashed (TypeError in the
    code reading the declared schema before the binding check), instead of naming the task's problem."""
    task = _copy_checkout(tmp_path)
    doc = yaml.safe_load((task / "task.yaml").read_text())
    doc["tools"][0]["input_schema"] = {**doc["tools"][0].get("input_schema", {}), **odd}
    (task / "task.yaml").write_text(yaml.safe_dump(doc))
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "skipped" and any("input_schema" in note for note in report.notes), report


@pytest.mark.skipif(not os.environ.get("CLAW_EVAL_CHECKOUT"), reason="set CLAW_EVAL_CHECKOUT to a claw-eval checkout")
def test_every_task_of_a_real_checkout_imports_or_says_why(tmp_path: Path) -> None:
    """Over a whole Claw-Eval checkout: no crash; every spec passes the report policy's gates but the oracle
    (no reference.json there) and, scored by its grader, the noop gate; a grader check runs without error."""
    reports = import_checkout(Path(os.environ["CLAW_EVAL_CHECKOUT"]), tmp_path)
    for report in reports:
        assert report.status in ("skipped", "error") or report.spec_file, report
        if report.spec_file is None:
            assert report.notes or report.left_out, report
            continue
        spec = load_spec(tmp_path / report.spec_file)
        validation = validate_spec(spec, policy="report")
        graded = [c.id for c in spec.checks] == ["grader"]  # a noop earns Claw-Eval's robustness share there
        allowed = {"oracle", "mutations", "noop"} if graded else {"oracle", "mutations"}
        assert {f.gate for f in validation.findings} <= allowed, (report.task_id, validation.findings)
        if graded:
            check = _score(spec, [{"say": "Okay."}]).checks[0]
            assert not check.error, (report.task_id, check.reason)


def test_a_framework_import_that_fails_in_the_sandbox_is_a_check_error_not_a_hang(tmp_path: Path) -> None:
    task = _copy_checkout(tmp_path)
    for name in ("extra", "other"):  # two modules that never load: each pass must make progress or stop
        (tmp_path / "src" / "claw_eval" / "graders" / f"{name}.py").write_text("from .base import Missing\nX = 1\n")
    code = (task / "grader.py").read_text()
    (task / "grader.py").write_text(code.replace(
        "from claw_eval.graders.base import AbstractGrader",
        "from claw_eval.graders.base import AbstractGrader\nfrom claw_eval.graders.extra import X\n"
        "from claw_eval.graders.other import X as Y"))
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    spec = load_spec(tmp_path / "out" / f"{report.task_id}.json")
    check = _score(spec, [{"say": "Okay."}]).checks[0]
    assert check.error and "Missing" in check.reason, check.reason


def test_a_grader_scored_spec_passes_the_sandbox_probes(graded: dict[str, Any]) -> None:
    """The validator reruns python checks with seeds, clocks and paraphrases prepended: the grader check holds.
    A noop earns Claw-Eval's robustness share (0.2 of the score), which the noop gate reports, as it should."""
    validation = validate_spec(graded["specs"][GRADED[0]], policy="report")
    assert {f.gate for f in validation.findings} <= {"noop", "mutations"}, validation.findings


# An imported tool may answer in any JSON shape, under a built-in tool's name too (CE16's `calendar_list_events`
# answers `{"events": [...], "total": 4}`, the calendar app a list): the narrating oracle's phrasings crashed reading
# it (`TypeError: unhashable type: 'slice'`, the rollout lost). Every phrasing now falls back to describing the
# answer as any JSON value: what it holds is said, never dropped.
_ODD_ANSWERS: list[tuple[Any, list[str]]] = [
    ({"items": [{"ref_id": "X-9", "title": "Marker record"}], "total": 1}, ["X-9", "Marker record", "total 1"]),
    ({"status": "done", "record": {"ref_id": "X-8", "title": "Nested marker"}}, ["done", "X-8", "Nested marker"]),
    ("plain marker text", ["plain marker text"]), (7, ["7"]), (True, ["true"]), (["m-a", "m-b"], ["m-a", "m-b"]),
    ([[1, 2]], ["a list of 2"]), ({"color": "teal", "size": 3}, ["teal", "size 3"]),
]


@pytest.mark.parametrize(("answer", "said"), _ODD_ANSWERS)
def test_every_phrasing_describes_a_tool_answer_in_any_shape(graded: dict[str, Any], answer: Any,
                                                             said: list[str]) -> None:
    tools = sorted({*FINDINGS, *ACTIONS, "imported_tool"})
    p = Phrasing(Env(graded["specs"][GRADED[0]]).state, random.Random(0), frozenset(tools))  # each a spec's own tool
    for tool in tools:
        assert all(s in finding(tool, {}, answer, p) for s in said), (tool, finding(tool, {}, answer, p))
        did = action(tool, {}, answer, p)
        if did != action(tool, {}, None, p):  # else a phrasing of the call's arguments alone (`posted in #x`)
            assert all(s in did for s in said), (tool, did)
    odd_args = {"people": 5, "changes": 3, "priority": 4, "message_ids": 7, "to": 2, "service": None}
    assert all(intent(tool, odd_args, p) for tool in INTENTS)


def test_the_narrating_oracle_rolls_out_an_imported_task_and_says_what_its_tools_answered(
        graded: dict[str, Any]) -> None:
    spec = graded["specs"][GRADED[0]]
    env = Env(spec)
    assert run_episode(env, NarratedOracle(spec, seed=0)).result.score == 1.0
    said = " ".join(m["content"] or "" for m in env.messages if m["role"] == "assistant")
    assert "total 4" in said and 'evt_001 "Daily standup"' in said and 'user "Mike"' in said
    assert "call calendar_list_events" in said and "between  and" not in said  # its `date` is no built-in argument
