"""Imported tools answer as Claw-Eval's dispatcher (`runner/dispatcher.py`) and the services' framework answer the
calls that never reach a handler (import39): a tool the task does not declare is the dispatcher's text `Error:
unknown tool 'X'` (recorded with status 404 and `{"error": "unknown tool 'X'"}`; no list of the tools there are),
and an endpoint whose `method` the service's route is not served by (a `GET` to a `POST` route; the dispatcher sends
task.yaml's method, upper-cased) is Starlette's 405 `{"detail": "Method Not Allowed"}` for every call. Each call is
played on the import and on the stand-in service (tests/support/claw_eval_own.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from coworkenv import Env
from coworkenv.env import Action
from coworkenv.examples import load_example
from coworkenv.importers import claw_eval_grader_runtime as runtime
from coworkenv.importers import import_checkout
from coworkenv.loading import load_spec
from coworkenv.spec import EnvSpec
from tests.support.claw_eval_own import MockService, shown, unknown_tool, world_now
from tests.test_import_claw_eval_answers import _one_tool_checkout
from tests.test_import_claw_eval_framework import _GMAIL

_SERVER = _GMAIL + """
@app.get("/gmail/health")
def health():
    return {"status": "ok"}
"""

# name, path, the method task.yaml gives, the status Claw-Eval's service answers with
_TOOLS = [
    ("gmail_get_message", "/gmail/messages/get", "GET", 405),  # a POST route asked by GET
    ("gmail_send_message", "/gmail/send", "get", 405),  # the dispatcher upper-cases it: the same
    ("gmail_health", "/gmail/health", "POST", 405),  # a GET route asked by POST
    ("gmail_search_messages", "/gmail/messages/get_raw", "GET", 404),  # no route: a 404 whatever the method
]


def _checkout(tmp: Path, tools: Sequence[tuple[str, str, str | None, int]]) -> tuple[Path, EnvSpec, list[str]]:
    """CE01 cut to gmail's list, with `tools` (name, path, method; None: no endpoint) added on the stand-in gmail
    `_SERVER`."""
    mail = [{"message_id": "msg_1", "from": "a@x.test", "to": "me@acme.test", "subject": "s", "body": "b",
             "date": "2026-03-02T08:00:00Z", "labels": ["INBOX"], "is_read": False}]
    root, out = _one_tool_checkout(tmp, "CE01_draft_invoice_reply", "gmail", "gmail_list_messages", "/gmail/messages",
                                   _SERVER, ("inbox.json", mail))
    task_yaml = root / "tasks" / "CE01_draft_invoice_reply" / "task.yaml"
    doc = yaml.safe_load(task_yaml.read_text(encoding="utf-8"))
    for name, path, method, _ in tools:
        doc["tools"].append({"name": name, "description": name, "input_schema": {
            "type": "object", "properties": {"message_id": {"type": "string"}}, "required": ["message_id"]}})
        if method is not None:
            doc["tool_endpoints"].append({"tool_name": name, "url": f"http://localhost:9100{path}", "method": method})
    task_yaml.write_text(yaml.safe_dump(doc), encoding="utf-8")
    (report,) = import_checkout(root, out, judge=False)
    assert report.spec_file is not None, report.notes
    return root, load_spec(out / str(report.spec_file)).model_copy(update={"faults": None}), list(report.notes)


@pytest.fixture(scope="module")
def gmail(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EnvSpec, list[str]]:
    return _checkout(tmp_path_factory.mktemp("dispatcher"), _TOOLS)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EnvSpec, list[str]]:
    # a tool task.yaml offers without an endpoint: the dispatcher knows it not
    return _checkout(tmp_path_factory.mktemp("dispatcher_plain"), [("gmail_get_message", "", None, 404)])


def _service(root: Path, spec: EnvSpec) -> MockService:
    return MockService(root, "python mock_services/gmail/server.py",
                       {"GMAIL_FIXTURES": "tasks/CE01_draft_invoice_reply/fixtures/gmail/inbox.json"}, "gmail",
                       world_now(spec))


def test_an_endpoint_asked_by_a_method_its_route_is_not_served_by_is_a_405(
        gmail: tuple[Path, EnvSpec, list[str]]) -> None:
    root, spec, notes = gmail
    service = _service(root, spec)
    env = Env(spec, max_steps=20)
    env.reset()
    offered = {d.name for d in spec.tool_decls}
    for name, path, method, status in _TOOLS:
        if name not in offered:
            continue
        for args in ({}, {"message_id": "msg_1"}, {"message_id": 5}):  # refused before any body is read
            theirs = service.call(path, args, method)
            content = env.step(Action.call(name, args)).messages[-1]["content"]
            assert (status, shown(content)) == theirs, (name, method, args)
            assert not env.audit[-1].ok
            entry = {"ok": False, "fault": "", "tool": name, "args": args, "error": env.audit[-1].error}
            if status == 405:  # the grader runtime presents it with the service's status and body
                assert runtime._framework_answer(entry) == theirs
    assert service.call("/gmail/health", {}, "GET") == (200, {"status": "ok"})
    assert service.call("/gmail/send", {}, "POST")[0] == 422  # served by POST: its model reads the body
    assert {"gmail_get_message", "gmail_send_message", "gmail_health"} <= offered
    assert any("405 Method Not Allowed: the gmail service serves /gmail/messages/get by POST, not GET" in n
               for n in notes), notes


def test_an_unknown_tool_is_answered_as_claw_evals_dispatcher(plain: tuple[Path, EnvSpec, list[str]]) -> None:
    _, spec, notes = plain
    env = Env(spec, max_steps=5)
    env.reset()
    assert "gmail_get_message" in {d.name for d in spec.tool_decls}  # offered, as task.yaml lists it
    assert any("offered without an endpoint" in n for n in notes), notes
    for name in ("gmail_delete_message", "caf\u00e9_tool", "gmail_get_message"):
        content = env.step(Action.call(name, {"message_id": "msg_1"})).messages[-1]["content"]
        recorded, text = unknown_tool(name)
        assert content == text == f"Error: unknown tool '{name}'"  # the text itself, not a JSON body
        entry = env.audit[-1]
        assert not entry.ok and json.loads(entry.error or "") == recorded
        # the grader runtime presents it as the dispatcher records it: status 404, its body
        assert runtime._framework_answer({"ok": False, "fault": "", "tool": name, "args": {},
                                          "error": entry.error}) == (404, recorded)
    # a spec of our own (its declared tools bound to no web service) keeps the env's answer, naming the tools
    ours = Env(load_example("triage_escalation_declared_tools"))
    ours.reset()
    message: dict[str, Any] = ours.step(Action.call("no_such_tool", {})).messages[-1]
    assert "available tools" in json.loads(message["content"])["error"]
    assert message["content"].startswith('{"error":"')  # and in its own (compact) JSON, not the dispatcher's


def test_arguments_that_are_no_json_are_sent_as_an_empty_body(plain: tuple[Path, EnvSpec, list[str]]) -> None:
    # Claw-Eval's provider reads a call's arguments with `json.loads`, `{}` when they are no JSON, and the dispatcher
    # sends that: the service answers as to a call without arguments (its model's defaults), not an error
    root, spec, _ = plain
    service = _service(root, spec)
    env = Env(spec, max_steps=5)
    env.reset()
    for text in ('{"days_back": 30', "days_back=30"):
        content = env.step(Action.call("gmail_list_messages", text)).messages[-1]["content"]
        assert env.audit[-1].ok and env.audit[-1].args == {}
        status, theirs = service.call("/gmail/messages", {})
        assert status == 200 and [m["message_id"] for m in shown(content)["messages"]] == [
            m["message_id"] for m in theirs["messages"]] == ["msg_1"], text
    # JSON that is not an object stays refused (Claw-Eval's tool-use model takes none: no call is made)
    env.step(Action.call("gmail_list_messages", "[1]"))
    assert not env.audit[-1].ok
    # a spec of our own keeps refusing it, saying why
    ours = Env(load_example("triage_escalation_declared_tools"))
    ours.reset()
    name = ours.toolbox.exposed[0]
    assert "not valid JSON" in json.loads(ours.step(Action.call(name, "{oops")).messages[-1]["content"])["error"]
