"""Imported tools answer as the FastAPI services behind them do before and around their handlers (import37): a body
the request model rejects is FastAPI's 422 (pydantic's errors, lax mode, `loc` under `body`), a value it coerces is
served coerced, a field it lacks is dropped, a route the service lacks is a 404, a handler that raises a 500 as
Claw-Eval's dispatcher records it. Each call is played on the import and on the stand-in service
(tests/support/claw_eval_own.py, its answers checked against FastAPI 0.165); a few answers are pinned as FastAPI
gave them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from coworkenv import Env
from coworkenv.env import Action
from coworkenv.importers import import_checkout
from coworkenv.importers.claw_eval_routes import request_fields
from coworkenv.importers.claw_eval_task import load_task
from coworkenv.loading import load_spec
from coworkenv.request_models import HANDLER_FAILED, RequestField, annotation_type, read_request
from coworkenv.spec import EnvSpec
from tests.support.claw_eval_own import MockService, dispatched, shown, world_now
from tests.test_import_claw_eval_answers import _MOVING_GMAIL, _one_tool_checkout

# A gmail service as Claw-Eval's is written (its mail moved as it loads): a list with int fields and defaults, a get
# with a required id, a send with a list field; no route for `/gmail/messages/get_raw`.
_GMAIL = _MOVING_GMAIL + """
class GetMessageRequest(BaseModel):
    message_id: str
class SendRequest(BaseModel):
    to: str
    subject: str
    body: str
    cc: list[str] | None = None
@app.post("/gmail/messages/get")
def get_message(req: GetMessageRequest):
    for e in _emails:
        if e["message_id"] == req.message_id:
            return e
    return {"error": f"Message {req.message_id} not found"}
@app.post("/gmail/send")
def send(req: SendRequest):
    return {"status": "sent", "message": {"to": req.to, "subject": req.subject, "body": req.body}}
"""

_TOOLS = [
    ("gmail_get_message", "/gmail/messages/get", {"message_id": {"type": "string"}}, ["message_id"]),
    ("gmail_send_message", "/gmail/send", {"to": {"type": "string"}, "subject": {"type": "string"},
                                           "body": {"type": "string"}}, ["to", "subject", "body"]),
    ("gmail_search_messages", "/gmail/messages/get_raw", {"query": {"type": "string"}}, ["query"]),
]


@pytest.fixture(scope="module")
def gmail(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EnvSpec]:
    mail = [{"message_id": f"msg_{n}", "from": "a@x.test", "to": "me@acme.test", "subject": f"s{n}", "body": "b",
             "date": at, "labels": ["INBOX"], "is_read": False}
            for n, at in enumerate(["2026-03-02T08:00:00Z", "2026-03-01T08:00:00Z", "2026-02-20T08:00:00Z"])]
    root, out = _one_tool_checkout(tmp_path_factory.mktemp("framework"), "CE01_draft_invoice_reply", "gmail",
                                   "gmail_list_messages", "/gmail/messages", _GMAIL, ("inbox.json", mail))
    task_yaml = root / "tasks" / "CE01_draft_invoice_reply" / "task.yaml"
    doc = yaml.safe_load(task_yaml.read_text(encoding="utf-8"))
    for name, path, props, required in _TOOLS:
        doc["tools"].append({"name": name, "description": name, "input_schema": {
            "type": "object", "properties": props, "required": required}})
        doc["tool_endpoints"].append({"tool_name": name, "url": f"http://localhost:9100{path}"})
    task_yaml.write_text(yaml.safe_dump(doc), encoding="utf-8")
    (report,) = import_checkout(root, out, judge=False)
    assert report.spec_file is not None, report.notes
    return root, load_spec(out / str(report.spec_file)).model_copy(update={"faults": None})


_PATHS = {"gmail_list_messages": "/gmail/messages", **{name: path for name, path, _, _ in _TOOLS}}
_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("gmail_list_messages", {}), ("gmail_list_messages", {"days_back": "2"}),  # coerced: served
    ("gmail_list_messages", {"days_back": 2.0}), ("gmail_list_messages", {"days_back": True}),
    ("gmail_list_messages", {"days_back": 2.5}), ("gmail_list_messages", {"days_back": "x"}),  # refused: 422
    ("gmail_list_messages", {"days_back": None}), ("gmail_list_messages", {"max_results": [1], "days_back": "y"}),
    ("gmail_list_messages", {"days_back": 10 ** 6}), ("gmail_list_messages", {"days_back": -(10 ** 7)}),  # a 500
    ("gmail_list_messages", {"max_results": "1", "unexpected": {"a": 1}}),  # a field it lacks: dropped
    ("gmail_get_message", {}), ("gmail_get_message", {"message_id": 5}), ("gmail_get_message", {"message_id": None}),
    ("gmail_get_message", {"message_id": "msg_1"}), ("gmail_get_message", {"message_id": "caf\u00e9 \u65e5\u672c"}),
    ("gmail_get_message", {"message_id": "x" * 5000}),
    ("gmail_send_message", {"to": "a@x.test"}), ("gmail_send_message", {"to": 1, "subject": ["s"], "body": None}),
    ("gmail_send_message", {"to": "no address \u2615", "subject": "s", "body": "b"}),  # recorded as given
    ("gmail_send_message", {"to": "a@x.test", "subject": "s", "body": "x" * 5000, "cc": "b@x.test"}),
    ("gmail_search_messages", {"query": 5}), ("gmail_search_messages", {}),  # no route: a 404 before any reading
]


def test_framework_answers_and_coercions_are_the_services(gmail: tuple[Path, EnvSpec]) -> None:
    root, spec = gmail
    service = MockService(root, "python mock_services/gmail/server.py",
                          {"GMAIL_FIXTURES": "tasks/CE01_draft_invoice_reply/fixtures/gmail/inbox.json"}, "gmail",
                          world_now(spec))
    env = Env(spec, max_steps=len(_CALLS) + 1)
    env.reset()
    answers, contents, texts = [], [], []
    for name, args in _CALLS:
        theirs: Any
        status, body = service.call(_PATHS[name], args) if _PATHS[name] in service.routes.handlers else (
            404, {"detail": "Not Found"})
        recorded, text = dispatched(body)  # what Claw-Eval's dispatcher shows its agent, the tool message's text
        contents.append(env.step(Action.call(name, args)).messages[-1]["content"])
        texts.append(text)
        ours: Any = shown(contents[-1])
        theirs = shown(text)
        ok = env.audit[-1].ok
        assert ok == (status < 400 and "error" not in recorded), (name, args, ours, theirs)
        if "messages" in theirs:
            theirs = {"messages": [m["message_id"] for m in theirs["messages"]]}
            ours = {"messages": [m["message_id"] for m in ours["messages"]]}
        if name == "gmail_send_message" and ok:
            theirs, ours = theirs["message"], {k: ours["message"][k] for k in theirs["message"]}
        assert ours == theirs, (name, args)
        answers.append((status, ours))
    # as FastAPI 0.165 answered them
    assert answers[5] == (422, {"detail": [{"type": "int_parsing", "loc": ["body", "days_back"], "msg": (
        "Input should be a valid integer, unable to parse string as an integer"), "input": "x"}]})
    assert answers[11] == (422, {"detail": [{"type": "missing", "loc": ["body", "message_id"], "msg": "Field required",
                                             "input": {}}]})
    assert answers[12][1]["detail"][0]["type"] == "string_type"
    # a handler that raised: Starlette's plain text, which the dispatcher reads no JSON from: the agent is shown the
    # decoder's error; audited as the dispatcher records it
    assert answers[8] == answers[9] == (500, "Error: Expecting value: line 1 column 1 (char 0)") == (500, contents[8])
    assert env.audit[8].error is not None and json.loads(env.audit[8].error) == HANDLER_FAILED
    # every answer that reads alike is the very text the dispatcher shows (`json.dumps(body, ensure_ascii=False)`:
    # `", "` and `": "`, non-ASCII as it is), not the env's compact JSON
    alike = [n for n, (c, t) in enumerate(zip(contents, texts, strict=True)) if shown(c) == shown(t)]
    assert len(alike) >= 18 and all(contents[n] == texts[n] for n in alike), [
        (contents[n][:80], texts[n][:80]) for n in alike if contents[n] != texts[n]]
    assert ", " in contents[5] and "\\u" not in "".join(contents)
    assert answers[-1] == answers[-2] == (404, {"detail": "Not Found"})
    assert [len(a[1]["detail"]) for a in answers if a[0] == 422] == [1, 1, 1, 2, 1, 1, 1, 2, 3, 1]
    # a refused call is audited refused; its error text is the answer's JSON
    assert json.loads(env.audit[5].error or "") == answers[5][1]


def test_a_request_model_is_read_only_as_far_as_the_env_reads_it_as_pydantic_does(tmp_path: Path) -> None:
    assert annotation_type("list[str] | None") == list[str] | None
    assert annotation_type("Optional[int]") == int | None
    for text in ("Literal['a']", "tuple[int]", "datetime", "list[str, int]"):
        with pytest.raises(ValueError):
            annotation_type(text)
    fields = [RequestField(name="status", annotation="str | None"), RequestField(name="days", annotation="int",
                                                                                  default=1)]
    # a null where the default is null is as if not given (the handler sees `req.status` None either way)
    assert read_request(fields, {"status": None, "days": "3", "other": "x"}) == {"days": 3, "other": "x"}
    # a model with an annotation outside that grammar is not read: the declared schema reads its calls as before
    task = tmp_path / "tasks" / "X1"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text(yaml.safe_dump({
        "task_id": "X1", "task_name": "x", "prompt": {"text": "x"},
        "services": [{"name": "todo", "command": "python mock_services/todo/server.py", "port": 9101}],
        "tools": [{"name": "a", "description": "", "input_schema": {}},
                  {"name": "b", "description": "", "input_schema": {}}],
        "tool_endpoints": [{"tool_name": "a", "url": "http://localhost:9101/todo/a"},
                           {"tool_name": "b", "url": "http://localhost:9101/todo/b"}]}))
    (tmp_path / "mock_services" / "todo").mkdir(parents=True)
    (tmp_path / "mock_services" / "todo" / "server.py").write_text(
        "from pydantic import BaseModel\nclass A(BaseModel):\n    when: datetime\nclass B(BaseModel):\n"
        "    n: int = 2\n    tags: list[str] | None = None\n@app.post('/todo/a')\ndef a(req: A): ...\n"
        "@app.post('/todo/b')\ndef b(req: B | None = None): ...\n")
    assert request_fields(task, load_task(task)) == {"b": [RequestField(name="n", annotation="int", default=2),
                                                           RequestField(name="tags", annotation="list[str] | None")]}


def test_the_grader_runtime_presents_a_framework_answer_with_the_services_status() -> None:
    from coworkenv.importers import claw_eval_grader_runtime as runtime
    entry = {"ok": False, "fault": "", "tool": "t", "args": {}}
    detail = {"detail": [{"type": "missing", "loc": ["body", "x"], "msg": "Field required", "input": {}}]}
    for body, status in ((detail, 422), ({"detail": "Not Found"}, 404), (HANDLER_FAILED, 500)):
        assert runtime._framework_answer({**entry, "error": json.dumps(body)}) == (status, body)
    assert runtime._framework_answer({**entry, "error": "{not json"}) is None
    assert runtime._framework_answer({**entry, "error": '{"error": "Ticket T-9 not found"}'}) is None


def test_injected_faults_answer_as_claw_evals_error_middleware(gmail: tuple[Path, EnvSpec], tmp_path: Path) -> None:
    # `--error-rate`: a 429 and a 500 answer as mock_services/_base.py's middleware does; a slow one is 3 s late
    root, _ = gmail
    (report,) = import_checkout(root, tmp_path / "out", error_rate=1.0, judge=False)
    spec = load_spec(tmp_path / "out" / str(report.spec_file))
    assert spec.faults is not None and spec.faults.slow_s == 3
    env = Env(spec, max_steps=60)
    env.reset()
    seen = {}
    for _ in range(40):
        ours = json.loads(env.step(Action.call("gmail_get_message", {"message_id": "msg_1"})).messages[-1]["content"])
        seen[env.audit[-1].fault] = ours
    assert seen["429"] == {"error": "rate_limit_exceeded", "retry_after_seconds": 2,
                           "message": "Too many requests. Please retry after a short delay."}
    assert seen["500"] == {"error": "internal_server_error",
                           "message": "An unexpected error occurred. Please try again."}
    assert seen["slow"]["message_id"] == "msg_1"


def test_the_fields_the_app_shows_otherwise_are_in_the_held_records_order() -> None:
    # the held values an answer shows until a write (`ResultShape.loaded`) follow the service's record, not the
    # order of a set (which the run's string hashes decide: two imports of one checkout gave other spec bytes)
    from coworkenv.bindings import ResultShape
    from coworkenv.importers.claw_eval_adapter import ServiceAdapter, ToolMap
    names = [f"f{n:02d}" for n in range(24, 0, -1)]
    adapter = ServiceAdapter("x", "todo", "X_FIXTURES", lambda data: {}, {}, key="id")
    mapping = ToolMap("todo_get_task", {}, result=ResultShape(fields={n: n for n in names}), stored=True)
    shape = adapter.answered(mapping, {"r1": {"id": "r1", **{n: f"held {n}" for n in names}}},
                             {"r1": {n: f"app {n}" for n in names}})
    assert list(shape.loaded["r1"]) == names
