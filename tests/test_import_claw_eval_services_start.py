"""A task whose mock service would not start (import45). Claw-Eval's runner starts every service task.yaml declares
before the episode (`runner/services.py`: `python <script>` from the checkout's root, with the service's env); one
that exits first is a `ServiceStartError`, and `cli.py` records the task as an error with no trials: printed `ERROR`,
counted under `Errored`, no score, run again with `--rerun-errors`. The import scored such a task as if its service
ran (a script the checkout lacks: a spec, episodes scored) or called it `skipped` (a fixture the service loads that is
absent or no JSON). Now it is `error`: no spec (so no episode of it is scored, as a 0 or otherwise), its report and
the command's output naming the task and the service and why, and importing again tries it again.

A service of the env that fails mid-episode (its tool backend raising) crashed the run (`coworkenv env run`, rollout,
eval: a traceback, every episode of the run lost); now the episode ends as `env_error`, naming the env, the tool and
its app, left out of the means as an LLM server's failure is, and the command exits with an error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.bindings import DeclaredTool
from coworkenv.cli import app as cli_app
from coworkenv.env import Action, ToolCallRequest
from coworkenv.importers.claw_eval_start import runner_plan
from coworkenv.importers.claw_eval_task import ClawTask
from coworkenv.loading import load_spec
from coworkenv.rollout import InfrastructureFailure, run_agent, split_outcomes
from tests.test_import_claw_eval_grader import _CALENDAR_SOURCE, _USER_EVENTS_ROUTE

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_like"
TASK = "CE16_book_free_slot_graded"
_SERVER = "python mock_services/calendar/server.py"


def _typo(doc: dict[str, Any], task: Path) -> None:
    doc["services"][0]["command"] = "python mock_services/calender/server.py"  # a folder the checkout lacks


def _module(doc: dict[str, Any], task: Path) -> None:
    doc["services"][0]["command"] = "python3 -u -m mock_services.agenda.server"


def _syntax(doc: dict[str, Any], task: Path) -> None:
    doc["services"][0]["command"] = "python mock_services/broken/server.py"


def _no_command(doc: dict[str, Any], task: Path) -> None:
    doc["services"][0]["command"] = ""


def _no_fixture(doc: dict[str, Any], task: Path) -> None:
    doc["services"][0]["env"]["CALENDAR_FIXTURES"] = f"tasks/{task.name}/fixtures/calendar/gone.json"


def _bad_fixture(doc: dict[str, Any], task: Path) -> None:
    (task / "fixtures" / "calendar" / "events.json").write_text('[{"event_id": "e1",', encoding="utf-8")


def _task_relative_fixture(doc: dict[str, Any], task: Path) -> None:  # import52: the file is in the task folder, but
    doc["services"][0]["env"]["CALENDAR_FIXTURES"] = "fixtures/calendar/events.json"  # the service opens it from the root


def _other_service(doc: dict[str, Any], task: Path) -> None:  # every declared service is started, adapted or not
    doc["services"].append({"name": "web_real", "command": "python mock_services/web_real/server.py", "port": 9120})


# What Claw-Eval's runner decides from task.yaml's service settings (import47; main imported each as if it ran):
def _ready_zero(doc: dict[str, Any], task: Path) -> None:  # the runner polls the health check for 0 s
    doc["services"][0]["ready_timeout"] = 0


def _health_elsewhere(doc: dict[str, Any], task: Path) -> None:  # probed where nothing listens: never ready
    doc["services"][0]["health_check"] = "http://localhost:9199/calendar/events"


def _port_held(doc: dict[str, Any], task: Path) -> None:  # a second process at a port the first one holds
    doc["services"].append({"name": "contacts", "command": _SERVER, "port": 9101,
                            "health_check": "http://localhost:9102/contacts/search"})


def _shared_port(doc: dict[str, Any], task: Path) -> None:
    """A second service on the first one's port, probed there: the first answers its health check (a 404 is under
    500), so the runner takes it as running and never starts it (its command and fixture would both fail); its tool
    at that port reaches the calendar service, which has no such route: a 404 for every call."""
    doc["services"].append({"name": "contacts", "command": "python mock_services/contacts/server.py", "port": 9101,
                            "health_check": "http://localhost:9101/contacts/search",
                            "env": {"CONTACTS_FIXTURES": f"tasks/{task.name}/fixtures/contacts/gone.json"}})
    doc["tools"].append({"name": "contacts_search", "description": "Search contacts",
                         "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}})
    doc["tool_endpoints"].append({"tool_name": "contacts_search", "url": "http://localhost:9101/contacts/search"})


def _loader_crash(doc: dict[str, Any], task: Path) -> None:  # the loader's `e["start_time"]`: a KeyError
    path = task / "fixtures" / "calendar" / "events.json"
    events = json.loads(path.read_text(encoding="utf-8"))
    del events[1]["start_time"]
    path.write_text(json.dumps(events), encoding="utf-8")


def _loader_object(doc: dict[str, Any], task: Path) -> None:  # the loader iterates an object's keys as records
    path = task / "fixtures" / "calendar" / "events.json"
    path.write_text(json.dumps({"events": json.loads(path.read_text(encoding="utf-8"))}), encoding="utf-8")


def _loader_naive(doc: dict[str, Any], task: Path) -> None:  # moved from the service's aware clock: a TypeError
    path = task / "fixtures" / "calendar" / "events.json"
    events = json.loads(path.read_text(encoding="utf-8"))
    events[2]["start_time"] = events[2]["start_time"].rstrip("Z")
    path.write_text(json.dumps(events), encoding="utf-8")


SOUND = (_shared_port,)  # imported: a spec each

# case -> (the service named, what the note says)
CASES = {_typo: ("calendar", "runs mock_services/calender/server.py, which the checkout does not hold"),
         _module: ("calendar", "the module mock_services.agenda.server, which the checkout does not hold"),
         _syntax: ("calendar", "mock_services/broken/server.py does not compile"),
         _no_command: ("calendar", "no command to run"),
         _no_fixture: ("calendar", "gone.json, is not in the checkout"),
         _task_relative_fixture: ("calendar", "fixtures/calendar/events.json, is not in the checkout"),
         _bad_fixture: ("calendar", "events.json, is no JSON it reads"),
         _other_service: ("web_real", "runs mock_services/web_real/server.py, which the checkout does not hold"),
         _ready_zero: ("calendar", "its ready_timeout is 0"),
         _health_elsewhere: ("calendar", "is at port 9199, where nothing listens"),
         _port_held: ("contacts", "its port 9101 is held by service 'calendar'"),
         _loader_crash: ("calendar", "events.json (record 1: no 'start_time'): the process exits"),
         _loader_object: ("calendar", "events.json (the fixture (a JSON dict, no list of records): TypeError"),
         _loader_naive: ("calendar", "can't compare offset-naive and offset-aware datetimes")}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A checkout of Claw-Eval's layout (its services' source: `_base.py`, the calendar's) with CE16 as it is (the
    sound twin) and once per way its service would not start; imported once by the command."""
    root = tmp_path_factory.mktemp("start")
    shutil.copytree(CHECKOUT / "src", root / "src")
    (root / "mock_services" / "calendar").mkdir(parents=True)
    (root / "mock_services" / "_base.py").write_text("def add_error_injection(app):\n    pass\n", encoding="utf-8")
    (root / "mock_services" / "calendar" / "server.py").write_text(_CALENDAR_SOURCE + _USER_EVENTS_ROUTE,
                                                                   encoding="utf-8")
    (root / "mock_services" / "broken").mkdir()
    (root / "mock_services" / "broken" / "server.py").write_text("def serve(:\n    pass\n", encoding="utf-8")
    for case in (None, *CASES, *SOUND):
        task = root / "tasks" / (TASK if case is None else f"{TASK}{case.__name__}")
        shutil.copytree(CHECKOUT / "tasks" / TASK, task)
        doc = yaml.safe_load((task / "task.yaml").read_text(encoding="utf-8"))
        doc["task_id"] = task.name
        doc["services"][0]["env"]["CALENDAR_FIXTURES"] = f"tasks/{task.name}/fixtures/calendar/events.json"
        if case is not None:
            case(doc, task)
        (task / "task.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = root / "out"
    result = CliRunner().invoke(cli_app, ["import", "claw-eval", str(root), "--out", str(out)])
    return {"root": root, "out": out, "result": result,
            "report": json.loads((out / "import_report.json").read_text(encoding="utf-8"))}


def test_a_service_that_would_not_start_is_an_error_naming_the_task_and_service(imported: dict[str, Any]) -> None:
    tasks = {t["task_id"]: t for t in imported["report"]["tasks"]}
    assert tasks[TASK]["status"] == "full" and tasks[TASK]["spec_file"], tasks[TASK]  # the sound twin
    for case, (service, says) in CASES.items():
        task = tasks[f"{TASK}{case.__name__}"]
        # main: _typo, _module, _syntax, _no_command, _other_service "full" or "partial" with a spec (scored as if
        # the service ran); _no_fixture, _bad_fixture "skipped" ("not a readable JSON fixture"); import51's main:
        # _task_relative_fixture "full" (the file found in the task folder, which the service never opens)
        assert task["status"] == "error" and task["spec_file"] is None, task
        (note,) = task["notes"]
        assert note.startswith(f"{task['task_id']}: service '{service}' would not start: ") and says in note, note
    # no spec of an errored task: no episode of it is run or scored, so none is a 0 in a mean
    specs = sorted(p.name for p in imported["out"].glob("*.json") if p.name != "import_report.json")
    assert specs == sorted([f"{TASK}.json", *(f"{TASK}{case.__name__}.json" for case in SOUND)])


def test_a_service_the_runner_takes_as_running_is_never_started_and_its_tool_reaches_the_other(
        imported: dict[str, Any]) -> None:
    """import47: main errored the task (the never-started service's command "would not start")."""
    tasks = {t["task_id"]: t for t in imported["report"]["tasks"]}
    task = tasks[f"{TASK}_shared_port"]
    assert task["status"] == "full" and task["spec_file"], task
    assert any(n.startswith("service 'contacts' is never started: its health check http://localhost:9101/contacts"
                            "/search is answered by service 'calendar'") for n in task["notes"]), task["notes"]
    spec = load_spec(imported["out"] / task["spec_file"])
    env = Env(spec)
    env.step(Action(tool_calls=(ToolCallRequest("contacts_search", {"query": "Mike"}),)))
    (entry,) = env.audit
    assert not entry.ok and "404 Not Found: the calendar service has no endpoint /contacts/search" in str(entry.error), entry
    # its grader reads the calendar's calls as the calendar's (main's endpoint map gave the port to the last service
    # declared on it, whose audit the grader never reads: 0.76 for the sound twin's 1.0)
    env = Env(spec)
    run_agent(env, OraclePolicy(spec))
    assert env.score().score == 1.0, env.score().checks


def test_the_command_lists_them_as_errored_and_importing_again_tries_them_again(imported: dict[str, Any]) -> None:
    result = imported["result"]
    assert result.exit_code == 0, result.output
    assert f"{TASK}_typo\terror\t{TASK}_typo: service 'calendar' would not start" in result.output
    assert f"{len(CASES) + 1 + len(SOUND)} task(s): {1 + len(SOUND)} full, 0 partial, 0 skipped, {len(CASES)} " \
        "error" in result.output
    assert f"error: {len(CASES)} task(s) errored, a mock service would not start" in result.output
    # fixed (the script is there now), the same command imports it; the others stay errored
    root, out = imported["root"], imported["out"]
    shutil.copytree(root / "mock_services" / "calendar", root / "mock_services" / "calender")
    again = CliRunner().invoke(cli_app, ["import", "claw-eval", str(root), "--out", str(out)])
    assert again.exit_code == 0, again.output
    tasks = {t["task_id"]: t for t in json.loads((out / "import_report.json").read_text())["tasks"]}
    assert tasks[f"{TASK}_typo"]["status"] == "full" and (out / f"{TASK}_typo.json").is_file()
    assert sum(t["status"] == "error" for t in tasks.values()) == len(CASES) - 1


def test_a_service_that_fails_mid_episode_is_an_errored_episode_not_a_score(
        imported: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    spec_file = imported["out"] / f"{TASK}.json"
    run = DeclaredTool.run
    calls = []

    def dies(self: DeclaredTool, kits: Any, kwargs: dict[str, Any]) -> Any:  # the backend is gone after a call
        calls.append(self.name)
        if len(calls) > 1:
            raise ConnectionResetError("the calendar backend went away")
        return run(self, kits, kwargs)

    monkeypatch.setattr(DeclaredTool, "run", dies)
    spec = load_spec(spec_file)
    record = run_agent(Env(spec), OraclePolicy(spec))
    assert record.stop_reason == "env_error", record.stop_reason
    assert f"the tool '{calls[1]}' (app calendar) failed mid-episode: ConnectionResetError" in record.error
    ran, lost = split_outcomes([record])
    assert (ran, lost) == ([], [record])  # out of every mean, as an episode the LLM server failed
    said = str(InfrastructureFailure("-", lost, 1))
    assert said.startswith("the env's tool backend failed all 1 episodes (env_error") and "LLM" not in said
    calls.clear()
    # main (import45): the command crashed (RuntimeError's traceback, exit 1, no result)
    result = CliRunner().invoke(cli_app, ["env", "run", str(spec_file), "--json"])
    # the same words as every stage's (import47; main: "failed 1 of 1 episodes (env_error); ...", its own wording)
    assert result.exit_code == 3 and f"error: {said}" in result.output, result.output


def test_an_errored_episode_run_by_the_command_reports_no_score(
        imported: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """`coworkenv env run` of an episode its env's backend cut short (import47): Claw-Eval records an errored task
    with no trials, no score; main printed the cut episode's partial score (JSON `score` 0.x beside
    `infrastructure_failure: true`) as if it were the model's (the text's `no score`: test_cli_llm_failures)."""
    run = DeclaredTool.run
    calls = []

    def dies(self: DeclaredTool, kits: Any, kwargs: dict[str, Any]) -> Any:
        calls.append(self.name)
        if len(calls) > 1:
            raise ConnectionResetError("the calendar backend went away")
        return run(self, kits, kwargs)

    monkeypatch.setattr(DeclaredTool, "run", dies)
    spec_file = str(imported["out"] / f"{TASK}.json")
    result = CliRunner().invoke(cli_app, ["env", "run", spec_file, "--json"])
    assert result.exit_code == 3, result.output
    printed = json.loads(result.stdout)
    assert printed["stop_reason"] == "env_error" and printed["infrastructure_failure"] is True, printed
    assert (printed["score"], printed["passed"], printed["completion"], printed["checks"]) == (None, None, None, []), \
        printed  # main: a float score, passed false and the cut episode's checks


@pytest.mark.parametrize(("mail", "says"), [
    ([], None), ({}, None),  # the loader returns at once on an empty fixture
    ([{"message_id": "m1", "date": "2026-03-02T08:00:00Z"}, {"message_id": "m2", "date": "2026-03-01T08:00:00+08:00"}],
     None),
    ([{"message_id": "m1", "date": "2026-03-02T08:00:00Z"}, {"message_id": "m2"}], "record 1: no 'date'"),
    ([{"message_id": "m1", "date": "2026-03-02T08:00:00"}], "can't subtract offset-naive and offset-aware"),
    ([{"message_id": "m1", "date": "2026-03-02T08:00:00Z"}, {"message_id": "m2", "date": "2026-03-02 8am"}],
     "record 1: ValueError"),
    ({"messages": [{"message_id": "m1", "date": "2026-03-02T08:00:00Z"}]}, "a JSON dict, no list of records"),
])
def test_the_mail_service_s_loader_fails_where_claw_eval_s_does(mail: Any, says: str | None) -> None:
    """gmail's `_load_fixtures` moves every mail's `date` from the newest to a day before its aware UTC clock."""
    from coworkenv.importers.claw_eval_services import ADAPTERS

    check = ADAPTERS["gmail"].load_fails
    assert check is not None
    said = check(mail)
    assert (said is None) if says is None else (said is not None and says in said), said


def test_a_service_moved_by_its_env_s_port_starts_in_a_plain_run(tmp_path: Path) -> None:
    """A guard, not an error: the service listens on its env's PORT (9150, where its health check is), not on
    task.yaml's `port`, unless the runner shifts ports (`--port-offset` sets PORT to `port`, and the health check
    then finds nothing): only what both ways decide is reported, and a plain run starts it."""
    task = ClawTask.model_validate({"task_id": "t", "prompt": {"text": "x"}, "services": [
        {"name": "calendar", "command": _SERVER, "port": 9101, "env": {"PORT": "9150"},
         "health_check": "http://localhost:9150/calendar/events"}]})
    assert runner_plan(tmp_path / "tasks" / "t", task) == ({}, {})
    shifted = task.model_copy(update={"services": [task.services[0].model_copy(update={"env": {}})]})
    assert "is at port 9150, where nothing listens" in runner_plan(tmp_path / "tasks" / "t", shifted)[1]["calendar"]


def test_an_ocr_folder_named_from_the_task_folder_is_not_what_the_service_reads(tmp_path: Path) -> None:
    """import52: Claw-Eval's OCR service, started from the checkout's root, reads `$OCR_FIXTURES/ocr/<file>` there;
    a folder named from the task folder is not there, so it answers with its default (T072's menu). The import read
    the task folder's text (a lone task folder, without the services' source, still may)."""
    from coworkenv.importers.claw_eval_ocr import read_ocr_fixture
    task = tmp_path / "tasks" / "X1"
    (task / "fixtures" / "ocr").mkdir(parents=True)
    (task / "fixtures" / "ocr" / "menu_ocr.txt").write_text("the task's own", encoding="utf-8")
    menu = tmp_path / "tasks" / "T072_restaurant_menu_contact" / "fixtures" / "ocr"
    menu.mkdir(parents=True)
    (menu / "menu_ocr.txt").write_text("T072's menu", encoding="utf-8")
    env = {"OCR_FIXTURES": "fixtures"}
    assert read_ocr_fixture(task, env)[0][1] == {"text": "the task's own"}  # no services' source: a lone folder
    (tmp_path / "mock_services").mkdir()
    (tmp_path / "mock_services" / "_base.py").write_text("", encoding="utf-8")
    assert read_ocr_fixture(task, env)[0][1] == {"text": "T072's menu"}  # main: the task's own
    assert read_ocr_fixture(task, {"OCR_FIXTURES": "tasks/X1/fixtures"})[0][1] == {"text": "the task's own"}
