"""Claw-Eval's own scoring of an episode, in process: its mock services (from the checkout's `mock_services/`)
answer the calls and its task grader (with its own pydantic models) scores them, as its runner does.

The services are FastAPI apps; FastAPI is not needed: while a service module loads, a stand-in records its
routes, and a call validates the request with the route's own request model (422 when it does not fit), runs the
handler (500 when it raises) and returns its JSON (404 for a path no route has). No error is injected.
"""

from __future__ import annotations

import asyncio
import datetime
import importlib.util
import inspect
import json
import os
import sys
import types
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml
from pydantic import BaseModel, ValidationError

from coworkenv.importers.claw_eval import LOADED_BEFORE_START_S
from coworkenv.spec import EnvSpec
from coworkenv.world import parse_time


class _Routes:
    """Stands in for `fastapi.FastAPI`: keeps the handler of each path, and the methods it is served by."""

    def __init__(self, **_: Any) -> None:
        self.handlers: dict[str, Callable[..., Any]] = {}
        self.methods: dict[str, set[str]] = {}

    def _route(self, path: str, methods: set[str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def keep(handler: Callable[..., Any]) -> Callable[..., Any]:
            self.handlers[path] = handler
            self.methods.setdefault(path, set()).update(methods)
            return handler
        return keep

    def post(self, path: str, **_: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._route(path, {"POST"})

    def get(self, path: str, **_: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._route(path, {"GET", "HEAD"})  # as Starlette serves a GET route

    def add_middleware(self, *_: Any, **__: Any) -> None:
        """Error injection is left out: the episode's calls all reach the handlers."""


class HTTPException(Exception):
    """Stands in for `fastapi.HTTPException`: a handler's own error, answered `{"detail": detail}` with its status."""

    def __init__(self, status_code: int, detail: Any = None, **_: Any) -> None:
        super().__init__(detail)
        self.status_code, self.detail = status_code, detail


class _NoPdfReader:
    """Stands in for `pypdf.PdfReader` (the documents service's): no PDF is read here."""

    def __init__(self, *_: Any, **__: Any) -> None:
        raise RuntimeError("no PDF is read in the stand-in")


def _pdf_reader() -> Any:
    """The documents service's `pypdf.PdfReader`: the library itself where it is installed (the import reads the PDFs a
    task's folder holds with it too), else a stand-in that reads none."""
    try:
        from pypdf import PdfReader
    except ImportError:
        return _NoPdfReader
    return PdfReader


@contextmanager
def _without_fastapi(root: Path, env: dict[str, str]) -> Iterator[None]:
    stand_ins = {"fastapi": types.ModuleType("fastapi"), "fastapi.responses": types.ModuleType("fastapi.responses"),
                 "starlette": types.ModuleType("starlette"), "starlette.middleware": types.ModuleType("sm"),
                 "starlette.middleware.base": types.ModuleType("starlette.middleware.base"),
                 "pypdf": types.ModuleType("pypdf")}
    stand_ins["fastapi"].__dict__.update(FastAPI=_Routes, Request=object, HTTPException=HTTPException)
    stand_ins["pypdf"].__dict__.update(PdfReader=_pdf_reader())
    stand_ins["fastapi.responses"].__dict__.update(JSONResponse=object)
    stand_ins["starlette.middleware.base"].__dict__.update(BaseHTTPMiddleware=object)
    saved = {name: sys.modules.get(name) for name in [*stand_ins, "mock_services", "mock_services._base"]}
    saved_env = {name: os.environ.get(name) for name in env}
    sys.modules.update(stand_ins)
    os.environ.update(env)
    sys.path.insert(0, str(root))
    try:
        yield
    finally:
        sys.path.remove(str(root))
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


Clock = Callable[[], datetime.datetime]  # a clock a service reads: the time now, with its zone


@contextmanager
def _clock_at(now: datetime.datetime | Clock | None) -> Iterator[None]:
    """While a service module loads, its `datetime.now()` becomes a clock that starts at `now` and runs with the
    wall clock from then on (for good: the module keeps the class), as the service's own clock runs on; or, `now`
    a `Clock`, that clock's reading at every call."""
    if now is None:
        yield
        return
    real = datetime.datetime
    shift = now - real.now(datetime.UTC) if isinstance(now, datetime.datetime) else None
    clock = now if not isinstance(now, datetime.datetime) else None

    class Pinned(real):  # type: ignore[valid-type,misc]
        @classmethod
        def now(cls, tz: datetime.tzinfo | None = None) -> datetime.datetime:
            at = clock() if clock is not None else real.now(datetime.UTC) + shift  # type: ignore[operator]
            return at.astimezone(tz) if tz is not None else at.replace(tzinfo=None)

    datetime.datetime = Pinned  # type: ignore[misc]
    try:
        yield
    finally:
        datetime.datetime = real  # type: ignore[misc]


def world_now(spec: EnvSpec) -> datetime.datetime:
    """The clock Claw-Eval's services read beside an imported task: the world's start. The services move their
    calendar (the earliest event to about a day after `now`) and mail (the newest to a day before it) as they load;
    the import keeps the fixture's times and places the world's clock where the services' `now` puts them, so the
    dates a task's prompt, reference and grader name (T003's 2026-03-02) are the days both sides hold. At the wall
    clock the services hold other days, and their own task's calls list nothing (docs/import_claw_eval.md). They
    load `LOADED_BEFORE_START_S` before the world starts, as they load before the agent's first call."""
    return datetime.datetime.fromtimestamp(parse_time(spec.world.start) - LOADED_BEFORE_START_S, datetime.UTC)


def fastapi_422(exc: ValidationError) -> dict[str, Any]:
    """FastAPI's answer to a body its request model rejects: each pydantic error, its `loc` under `body`, without
    pydantic's `url` (`{"detail": [{"type", "loc", "msg", "input"}]}`, checked against FastAPI 0.165)."""
    return {"detail": json.loads(json.dumps([{**e, "loc": ["body", *e["loc"]]} for e in exc.errors(include_url=False)],
                                            default=str))}


# A handler that raises is a 500 whose body is the text `Internal Server Error` (Starlette's, text/plain); Claw-Eval's
# dispatcher reads no JSON from it and records the decoder's error (`runner/dispatcher.py`: `dispatched`).
INTERNAL_SERVER_ERROR = "Internal Server Error"
HANDLER_FAILED = {"error": "Expecting value: line 1 column 1 (char 0)"}


def dispatched(body: Any) -> tuple[Any, str]:
    """What Claw-Eval's dispatcher makes of a service's answer: the body it records (`response_body`) and the tool
    result's text; a body that is no JSON (`resp.json()` raises) is recorded as the decoder's error."""
    if isinstance(body, str):
        return dict(HANDLER_FAILED), f"Error: {HANDLER_FAILED['error']}"
    return body, json.dumps(body, ensure_ascii=False)


def unknown_tool(name: str) -> tuple[Any, str]:
    """What Claw-Eval's dispatcher records and shows for a tool the task does not declare (`runner/dispatcher.py`:
    status 404; no service is called)."""
    return {"error": f"unknown tool '{name}'"}, f"Error: unknown tool '{name}'"


def shown(content: str) -> Any:
    """An env's tool message as the service's answer reads: its JSON, or the text of a plain-text answer."""
    try:
        return json.loads(content)
    except ValueError:
        return content


class MockService:
    """One of Claw-Eval's mock services, loaded from the checkout with a task's environment (`now`: the clock it
    reads, from then on with the wall clock, or a `Clock` it reads at every call; else the wall clock: its calendar
    and mail are moved relative to it as they load)."""

    def __init__(self, root: Path, command: str, env: dict[str, str], name: str,
                 now: datetime.datetime | Clock | None = None) -> None:
        path = root / command.split()[-1]
        # (paths from the checkout's root, where the runner starts the service: its fixtures, the documents' folder)
        values = {k: str(root / v) if k.endswith(("FIXTURES", "_DIR")) else str(v) for k, v in env.items()}
        with _without_fastapi(root, {**values, "ERROR_RATE": "0"}), _clock_at(now):
            spec = importlib.util.spec_from_file_location(f"claw_eval_mock_{name}_{id(self)}", path)
            assert spec is not None and spec.loader is not None
            self.module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(self.module)
        self.routes: _Routes = self.module.app

    def call(self, path: str, body: dict[str, Any], method: str = "POST") -> tuple[int, Any]:
        """The answer to a request of `method` (Claw-Eval's dispatcher sends the endpoint's, `httpx` upper-casing
        it): a path no route has a 404, one served by other methods Starlette's 405."""
        handler = self.routes.handlers.get(path)
        if handler is None:
            return 404, {"detail": "Not Found"}
        if method.upper() not in self.routes.methods[path]:
            return 405, {"detail": "Method Not Allowed"}
        hints = typing.get_type_hints(handler, globalns=vars(self.module))
        models = [t for t in typing.get_args(hints["req"]) or (hints["req"],)
                  if isinstance(t, type) and issubclass(t, BaseModel)] if "req" in hints else []
        try:
            args = [models[0].model_validate(body)] if models else []
        except ValidationError as exc:
            return 422, fastapi_422(exc)
        try:
            result = handler(*args)
            if inspect.iscoroutine(result):  # an async handler (the OCR service's), run as its server awaits it
                result = asyncio.run(result)
        except HTTPException as exc:  # the handler's own error (the documents service's missing file)
            return exc.status_code, {"detail": exc.detail}
        except Exception:  # the service's server answers any failing handler so (text/plain)
            return 500, INTERNAL_SERVER_ERROR
        if isinstance(result, BaseModel):  # a `response_model` answer, sent as its JSON
            result = result.model_dump(mode="json")
        return 200, json.loads(json.dumps(result, default=str))


JudgeRule = Callable[[list[dict[str, str]]], float]  # the judge's score for the messages it is sent


_JUDGE_RULES: list[JudgeRule] = []  # the rule of the scoring under way (Claw-Eval's judge module is loaded once)


def _create(*, messages: list[dict[str, str]], **_: Any) -> Any:
    content = json.dumps({"score": _JUDGE_RULES[-1](messages), "reasoning": "stand-in judge"})
    return types.SimpleNamespace(choices=[types.SimpleNamespace(message=types.SimpleNamespace(content=content))])


class _OpenAI:
    """Stands in for `openai.OpenAI`, which Claw-Eval's `llm_judge.py` builds its client from: its
    `chat.completions.create` answers `{"score": rule(messages), ...}` in process, as a judge server would."""

    def __init__(self, **_: Any) -> None:
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=_create))


@contextmanager
def _claw_eval_src(root: Path, judge_rule: JudgeRule | None) -> Iterator[None]:
    saved = sys.modules.get("openai")
    stand_in = types.ModuleType("openai")
    stand_in.__dict__.update(OpenAI=_OpenAI)
    sys.modules["openai"] = stand_in
    _JUDGE_RULES.append(judge_rule or (lambda _: 0.0))
    sys.path.insert(0, str(root / "src"))
    try:
        yield
    finally:
        sys.path.remove(str(root / "src"))
        _JUDGE_RULES.pop()
        if saved is None:
            sys.modules.pop("openai", None)
        else:
            sys.modules["openai"] = saved


def claw_eval_score(root: Path, task_dir: Path, steps: list[dict[str, Any]],
                    judge_rule: JudgeRule | None = None,
                    now: datetime.datetime | None = None) -> tuple[float, list[str]]:
    """Claw-Eval's task score of the episode `steps` ({"call": {name, arguments}}, with the text written beside
    it as "text", or {"say": text}, or a simulated user's answer to the last {"user": text}), and how its
    services answered each call. `judge_rule`: the grader gets Claw-Eval's own `LLMJudge`, whose client answers
    by that rule (else no judge). `now`: the services' clock (`world_now`), else the wall clock."""
    with _claw_eval_src(root, judge_rule):
        from claw_eval.graders.registry import get_grader
        from claw_eval.models.content import TextBlock, ToolResultBlock, ToolUseBlock
        from claw_eval.models.message import Message
        from claw_eval.models.scoring import compute_task_score
        from claw_eval.models.task import TaskDefinition
        from claw_eval.models.trace import ToolDispatch, TraceMessage
        judge = None
        if judge_rule is not None:
            from claw_eval.graders.llm_judge import LLMJudge
            judge = LLMJudge(model_id="stand-in-judge")
        doc = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8"))
        services = {s["name"]: MockService(root, s["command"], s.get("env") or {}, s["name"], now)
                    for s in doc.get("services") or []}
        endpoints = {e["tool_name"]: urlparse(e["url"]).path for e in doc.get("tool_endpoints", [])}
        urls = {e["tool_name"]: e["url"] for e in doc.get("tool_endpoints", [])}
        methods = {e["tool_name"]: e.get("method", "POST") for e in doc.get("tool_endpoints", [])}
        task = TaskDefinition.from_yaml(task_dir / "task.yaml")
        trace = [TraceMessage(trace_id="t", message=Message(role="user", content=[TextBlock(text=task.prompt.text)]))]
        dispatches, answers = [], []
        for n, step in enumerate(steps):
            if "user" in step:  # the simulated user's answer, as the loop sends it (`runner/loop.py`)
                trace.append(TraceMessage(trace_id="t", message=Message(
                    role="user", content=[TextBlock(text=f"[user_agent]\n{step['user']}")])))
                continue
            if "say" in step:  # empty content is no text block, as Claw-Eval's provider parses a message
                trace.append(TraceMessage(trace_id="t", message=Message(
                    role="assistant", content=[TextBlock(text=step["say"])] if step["say"] else [])))
                continue
            name, args, use = step["call"]["name"], step["call"]["arguments"], f"call_{n}"
            path = endpoints.get(name, "")
            service = next((s for s in services.values() if path in s.routes.handlers), None)
            status, answer = service.call(path, args, methods[name]) if service else (404, {"detail": "Not Found"})
            body, text = dispatched(answer) if name in endpoints else unknown_tool(name)  # no service called
            answers.append(f"{status} {json.dumps(body, ensure_ascii=False)[:200]}")
            # the text the model wrote beside the call, first, as Claw-Eval's provider parses a message
            said = [TextBlock(text=step["text"])] if step.get("text") else []
            trace.append(TraceMessage(trace_id="t", message=Message(role="assistant", content=[
                *said, ToolUseBlock(id=use, name=name, input=args)])))
            trace.append(TraceMessage(trace_id="t", message=Message(role="user", content=[ToolResultBlock(
                tool_use_id=use, content=[TextBlock(text=text)], is_error=status >= 400)])))
            dispatches.append(ToolDispatch(trace_id="t", tool_use_id=use, tool_name=name, request_body=args,
                                           endpoint_url=urls.get(name, ""),
                                           response_status=status,
                                           response_body=body))
        audit = {}
        reset = {s["name"]: s.get("reset_endpoint") for s in doc.get("services") or []}
        for name, service in services.items():
            if not reset.get(name):  # the runner fetches the audits of services with a reset endpoint alone
                continue
            audit_path = next(p for p in service.routes.handlers if p.endswith("/audit"))
            audit[name] = service.call(audit_path, {}, min(service.routes.methods[audit_path]))[1]
        grader = get_grader(task.task_id, tasks_dir=task_dir.parent, task_dir=task_dir)
        scores = grader.grade(trace, dispatches, task, audit_data=audit, judge=judge, media_events=[], env_snapshot=None)
        return float(compute_task_score(scores)), answers
