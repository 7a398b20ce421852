"""A declared tool's request as the web service behind it reads it: its request model (a pydantic model of a FastAPI
service, as an imported Claw-Eval task's mock service declares it), and the answers that service's framework gives
before or around its handler, worded as the framework words them.

- A body the model rejects is a 422 `{"detail": [{"type", "loc": ["body", ...], "msg", "input"}]}` (FastAPI's
  `RequestValidationError` answer: pydantic's errors, lax mode, without their `url`); a body it takes is read as it
  reads it (`"2"` for an int is 2, `true` for an int 1, a whole float 2), fields it lacks dropped.
- A route the service lacks is a 404 `{"detail": "Not Found"}`; a route it serves by another method than the one the
  tool's endpoint sends (a `GET` where the route is `POST`) a 405 `{"detail": "Method Not Allowed"}`.
- A handler that raises is Starlette's 500 `Internal Server Error` (plain text, `INTERNAL_SERVER_ERROR`): the agent is
  shown that text as it is, not a JSON body; Claw-Eval's dispatcher reads no JSON from it and records the decoder's
  error (`HANDLER_FAILED`), which is the call's audited error, what its graders read.
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
import warnings
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Annotated, Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from coworkenv.tools import Dispatcher, DispatcherText, ToolError, ToolOutcome

NOT_FOUND = {"detail": "Not Found"}
METHOD_NOT_ALLOWED = {"detail": "Method Not Allowed"}
HANDLER_FAILED = {"error": "Expecting value: line 1 column 1 (char 0)"}
# Claw-Eval's dispatcher's record of a call whose endpoint no service listens on (`httpx.ConnectError`, status 500)
CONNECTION_REFUSED = {"error": "[Errno 111] Connection refused"}
INTERNAL_SERVER_ERROR = "Internal Server Error"  # Starlette's plain-text body of a handler that raised

# The annotations a request model field may have: these names, `list[...]`/`dict[...]` of them, `X | None`,
# `Optional[X]`.
_TYPES: dict[str, Any] = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict, "Any": Any,
                          "None": None}


class Answered(ToolError):
    """A failed call whose answer is the body the service's framework sends (`body`: JSON, or a text shown as it is),
    not an error text of ours: the agent is shown the body; the error text (audited) is `text`, else the body's JSON."""

    def __init__(self, body: dict[str, Any] | str, text: str | None = None) -> None:
        super().__init__(text if text is not None else json.dumps(body, ensure_ascii=False, separators=(",", ":")))
        self.body = body


def handler_failed(text: str | None = None) -> Answered:
    """The answer to a call whose handler raised: Starlette's plain-text 500 shown to the agent; audited as `text` (the
    app's error, saying why) or else the dispatcher's record of it (`HANDLER_FAILED`'s JSON)."""
    return Answered(INTERNAL_SERVER_ERROR, text if text is not None else json.dumps(
        HANDLER_FAILED, ensure_ascii=False, separators=(",", ":")))


def unknown_tool(name: str) -> ToolOutcome:
    """Claw-Eval's dispatcher's answer to a call of a tool the task does not declare (`runner/dispatcher.py`): the
    agent is shown the text `Error: unknown tool 'X'` (no list of the tools there are); the call is recorded with
    status 404 and the body `{"error": "unknown tool 'X'"}`, which is its audited error (the body's JSON)."""
    exc = unknown_tool_error(name)
    return ToolOutcome(False, error=str(exc), body=exc.body)


def unknown_tool_error(name: str) -> Answered:
    """`unknown_tool` as the error a declared tool's call raises (one offered without an endpoint)."""
    body = {"error": f"unknown tool '{name}'"}
    return Answered(DispatcherText(f"Error: {body['error']}"), json.dumps(body, ensure_ascii=False,
                                                                         separators=(",", ":")))


def connection_refused() -> Answered:
    """The answer to a call of a tool whose endpoint no service of the task listens on (its URL's port is none of
    theirs): the dispatcher's request fails to connect and the agent is shown `Error: [Errno 111] Connection
    refused`, recorded with status 500 and `{"error": "[Errno 111] Connection refused"}` (the audited error)."""
    return Answered(DispatcherText(f"Error: {CONNECTION_REFUSED['error']}"), json.dumps(
        CONNECTION_REFUSED, ensure_ascii=False, separators=(",", ":")))


def dispatcher_shown(observation: Any, ok: bool, text: str) -> str:
    """The text Claw-Eval's dispatcher shows the agent for a service's answer (`runner/dispatcher.py`): the body as
    `resp.json()` reads it, written by `json.dumps(body, ensure_ascii=False)` (`", "` and `": "` separators); where
    the body is no JSON (a crashed handler's `Internal Server Error`), `resp.json()` raises and the text is `Error:
    <the decoder's error>`. `text` is the env's own (`tools.shown_text`); the dispatcher's own texts stay as they are."""
    if isinstance(observation, DispatcherText):
        return str(observation)
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"Error: {exc}"
    return json.dumps(body, ensure_ascii=False)


# Claw-Eval's runner: an unknown tool is its dispatcher's text; arguments that are no JSON its provider reads as `{}`
# (`runner/providers/openai_compat.py`: `json.loads(tc.function.arguments)`, `{}` on a `JSONDecodeError`) and sends so;
# a service's answer is shown as the dispatcher renders it (`dispatcher_shown`)
CLAW_EVAL_DISPATCHER = Dispatcher(unknown=unknown_tool, unreadable_as_empty=True, shows=dispatcher_shown)


class RequestField(BaseModel):
    """A field of a service's request model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(description="The field's name")]
    annotation: Annotated[str, Field(description="Its annotation as the source writes it: str, int, float, bool, "
                                                 "list[str], dict, each optionally `| None`")]
    required: Annotated[bool, Field(description="No default: a request without it is refused")] = False
    default: Annotated[Any, Field(description="The default of a field not required (a JSON value)")] = None


class DaySpan(BaseModel):
    """A count of days the service's handler adds to a day (`date + timedelta(days=n)`) or takes from now
    (`now - timedelta(days=n)`): a count taking the time past what Python's datetime holds makes the handler raise."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    days: Annotated[str, Field(description="The declared argument holding the count")]
    sign: Annotated[Literal[1, -1], Field(description="1: added, -1: taken away")] = 1
    day: Annotated[str | None, Field(description="The declared argument holding the day (`%Y-%m-%d`) the count is "
                                                 "added to; null: the call's time")] = None


# Absolute paths every machine Claw-Eval's services run on holds (Linux's and macOS's root folders, the files of
# every user database and resolver), whatever else it holds: a handler that resolves a path finds them there
MACHINE_PATHS = frozenset({"/", "//", "/bin", "/dev", "/dev/null", "/etc", "/etc/hosts", "/etc/passwd", "/tmp", "/usr",
                           "/usr/bin", "/usr/lib", "/var"})


class Refusal(BaseModel):
    """A handler's own `HTTPException(status, detail)` for a call it cannot serve (Claw-Eval's documents service: a
    file its folder lacks is a 404 `File not found: PATH`, one outside its folder or no PDF a 400), FastAPI's body
    `{"detail": detail}`. `paths` empty: every call; else only a call whose `argument`, read as a path under `folder`
    (both from the checkout's root, normalised as the handler's `resolve()` does), names one of them (or, with
    `above`, a folder above the checkout's root, or an absolute path of `MACHINE_PATHS`, which any machine has)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: Annotated[int, Field(ge=400, le=599, description="The HTTP status the service answers with")]
    detail: Annotated[str, Field(description="Its `detail` text, `{name}` standing for the declared argument `name` "
                                             "as given")]
    argument: Annotated[str | None, Field(description="The declared argument holding the path")] = None
    folder: Annotated[str, Field(description="The service's folder, from the checkout's root (`.`: the root)")] = "."
    paths: Annotated[list[str], Field(description="The paths, from the checkout's root, it answers so")] = []
    above: Annotated[bool, Field(description="Also a path above the checkout's root (`../..`, `/`)")] = False

    def matches(self, arguments: dict[str, Any]) -> bool:
        """Whether the call is answered by this refusal."""
        if self.argument is None or not (self.paths or self.above):
            return True
        value = arguments.get(self.argument)
        if not isinstance(value, str):
            return False
        if value.startswith("/"):  # an absolute path: only those every Linux (and macOS) machine has are known
            return self.above and posixpath.normpath(value) in MACHINE_PATHS
        named = posixpath.normpath(posixpath.join(self.folder, value))
        return named in self.paths or (self.above and all(part == ".." for part in named.split("/")))

    def answer(self, arguments: dict[str, Any]) -> Answered:
        """The call's answer, `{"detail": ...}` as FastAPI sends it."""
        detail = re.sub(r"\{(\w+)\}", lambda m: str(arguments.get(m.group(1), "")), self.detail)
        return Answered({"detail": detail})


def refused(refusals: list[Refusal], arguments: dict[str, Any]) -> Answered | None:
    """The answer of the first refusal the call meets (None: none)."""
    found = next((r for r in refusals if r.matches(arguments)), None)
    return found.answer(arguments) if found is not None else None


class Document(BaseModel):
    """A PDF the service's folder holds, as Claw-Eval's documents handler serves it (`extract_text`): the text pypdf
    extracts from each page, read at import; a call whose `argument`, read as a path under `folder` (from the
    checkout's root, normalised as `Refusal.matches` reads it), names one of `names` is answered `{"path", "page_count",
    "pages_returned", "text"}`: the first `max_pages` pages (all when it is none or 0; Python's slice of them when it
    is negative, as the handler slices), joined by a blank line and stripped."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    names: Annotated[list[str], Field(description="The paths, from the checkout's root, that resolve to the file "
                                                   "(its own and those of links to it)")]
    shown: Annotated[str, Field(description="Its path from the service's folder, as the handler answers it")]
    pages: Annotated[list[str], Field(description="Each page's extracted text (empty where pypdf finds none)")]
    argument: Annotated[str, Field(description="The declared argument holding the path")] = "path"
    limit: Annotated[str, Field(description="The declared argument holding the page limit")] = "max_pages"
    folder: Annotated[str, Field(description="The service's folder, from the checkout's root (`.`: the root)")] = "."

    def matches(self, arguments: dict[str, Any]) -> bool:
        value = arguments.get(self.argument)
        if not isinstance(value, str) or value.startswith("/"):  # an absolute path: the machine's checkout is unknown
            return False
        return posixpath.normpath(posixpath.join(self.folder, value)) in self.names

    def answer(self, arguments: dict[str, Any]) -> dict[str, Any]:
        limit = arguments.get(self.limit)
        count = len(self.pages)
        returned = min(limit or count, count) if isinstance(limit, int) else count
        text = "\n\n".join(self.pages[:returned]).strip()
        return {"path": self.shown, "page_count": count, "pages_returned": returned, "text": text}


def extracted(documents: list[Document], arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The answer of the document the call names (None: none)."""
    found = next((d for d in documents if d.matches(arguments)), None)
    return found.answer(arguments) if found is not None else None


class Framework(BaseModel):
    """How the service behind a declared tool answers before and around its handler (`Binding.framework`); a tool
    with `unserved` set is answered as a route the service lacks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    request_model: Annotated[list[RequestField] | None, Field(
        description="Its request model, every field: a call is read as it reads it, not against the declared schema "
                    "(which then only documents): a body it rejects is its 422, a value it coerces (`\"2\"` for an "
                    "int) is served coerced; null: the declared schema reads the call")] = None
    day_spans: Annotated[list[DaySpan], Field(
        description="Counts of days its handler adds to a day or takes from now: past what datetime holds, a 500")] = []
    handler_fails: Annotated[list[str], Field(
        description="Texts of the op's errors that stand for its handler failing (a calendar listing a time it "
                    "cannot compare): a 500")] = []
    method_not_allowed: Annotated[bool, Field(
        description="With the binding's `unserved`: the service has the route, but not for the method the tool's "
                    "endpoint sends (a GET to a POST route): every call is its 405, not a 404")] = False
    no_endpoint: Annotated[bool, Field(
        description="With the binding's `unserved`: the tool is offered but names no endpoint, so the dispatcher "
                    "knows it not: every call is its `Error: unknown tool 'X'` (`unknown_tool`)")] = False
    unreachable: Annotated[bool, Field(
        description="With the binding's `unserved`: the tool's endpoint is at a port no service of the task listens "
                    "on: every call is the dispatcher's `Error: [Errno 111] Connection refused` "
                    "(`connection_refused`)")] = False
    refusals: Annotated[list[Refusal], Field(
        description="With the binding's `unserved`: the service serves the route, and its handler answers every call "
                    "(read by its request model first) with its own HTTP error, the first of these the call meets "
                    "(`Refusal`): a file the service's folder lacks")] = []
    documents: Annotated[list[Document], Field(
        description="With `refusals`: the files its handler serves (a PDF the service's folder holds), answered before "
                    "the refusals that name no path")] = []

    @pydantic.model_serializer(mode="wrap")
    def _as_before(self, handler: pydantic.SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in ("method_not_allowed", "no_endpoint", "unreachable", "refusals", "documents"):  # (false: dumped as before
            if not getattr(self, name):  # they existed: spec ids stay)
                data.pop(name, None)
        return data


def annotation_type(text: str) -> Any:
    """The Python type a field annotation's text names; ValueError for one outside the grammar above."""
    def build(node: ast.expr) -> Any:
        if isinstance(node, ast.Name) and node.id in _TYPES:
            return _TYPES[node.id]
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = build(node.left), build(node.right)
            return left | right if None not in (left, right) else (left if right is None else right) | None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            args = tuple(build(e) for e in inner)
            if node.value.id == "Optional" and len(args) == 1:
                return args[0] | None
            if node.value.id == "list" and len(args) == 1:
                return list[args[0]]  # type: ignore[valid-type]
            if node.value.id == "dict" and len(args) == 2:
                return dict[args[0], args[1]]  # type: ignore[valid-type]
        raise ValueError(f"unsupported annotation: {text}")
    return build(ast.parse(text, mode="eval").body)


def model_of(fields: list[RequestField]) -> type[BaseModel]:
    """The pydantic model of a request model's fields (built once); raises when pydantic cannot build it (a field
    name it refuses)."""
    return _model(json.dumps([f.model_dump() for f in fields]))


@cache
def _model(fields_json: str) -> type[BaseModel]:
    fields = [RequestField.model_validate(f) for f in json.loads(fields_json)]
    with warnings.catch_warnings():  # a field named as a BaseModel attribute (`json`) shadows it, as in the service
        warnings.simplefilter("ignore")
        return create_model("Request", **{  # type: ignore[call-overload]
            f.name: (annotation_type(f.annotation), ... if f.required else f.default) for f in fields})


def read_request(fields: list[RequestField], arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the request model reads them: each field given, as validated (coerced); a null where the
    field's default is null left out (the handler sees the same model either way: `req.status` is None); the others
    as given (the model drops them; the binding ignores them). Raises `Answered` with FastAPI's 422 when the model
    rejects the body."""
    try:
        request = model_of(fields).model_validate(arguments)
    except ValidationError as exc:
        raise Answered({"detail": json.loads(json.dumps(
            [{**e, "loc": ["body", *e["loc"]]} for e in exc.errors(include_url=False)], default=str))}) from None
    named = {f.name: f for f in fields}
    return {k: getattr(request, k) if k in named else v for k, v in arguments.items()
            if not (k in named and v is None and not named[k].required and named[k].default is None)}


def check_spans(spans: list[DaySpan], arguments: dict[str, Any], now: str | None) -> None:
    """Raises `Answered` with the handler's failure when a count of days takes its time past what datetime holds."""
    for span in spans:
        count = arguments.get(span.days)
        if not isinstance(count, int) or isinstance(count, bool):
            continue
        try:
            if span.day is None:
                base = datetime.fromisoformat((now or "2000-01-01T00:00:00Z").replace("Z", "+00:00"))
            else:
                base = datetime.strptime(str(arguments.get(span.day)), "%Y-%m-%d").replace(tzinfo=UTC)
        except ValueError:
            continue  # the handler refuses the day before it counts (its own answer)
        try:
            base + span.sign * timedelta(days=count)
        except OverflowError:
            raise handler_failed() from None
