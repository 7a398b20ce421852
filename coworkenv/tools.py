"""Typed tools over the world: tagging, OpenAI JSON-Schema export and error-safe dispatch.

A tool is a method of an app's `Toolkit`, tagged `@read` or `@write`. Its signature and docstring are the
single source of its schema; arguments are validated by a pydantic model derived from the signature.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Literal, TypeVar, get_type_hints

import docstring_parser
import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from coworkenv.world import AppDef, Record, World

ToolKind = Literal["read", "write"]
F = TypeVar("F", bound=Callable[..., Any])

# True while a tool runs for a caller that only serializes its result with orjson (`ToolBox.call(..., rendered=True)`,
# as `Env.step` does): list tools may then give their rows as `orjson.Fragment`s, each record's JSON rendered once and
# kept while the record lives (see `coworkenv.apps._common.dump_many`), instead of building a dict per row per call.
RENDERING: ContextVar[bool] = ContextVar("coworkenv_tool_rendering", default=False)


class ToolError(Exception):
    """A failed tool call. Becomes an observation the agent can read and recover from: `{"error": text}`, or `body`
    when set (the answer a service's framework gives, `coworkenv.request_models`: JSON, or a text shown as it is)."""

    body: dict[str, Any] | str | None = None


class NoRecord(ToolError):
    """A failed call naming a record no table holds (`Toolkit.require`): `record_id` is the id as looked up, so a
    declared tool can say it as the service behind it does (`Binding.not_found`)."""

    def __init__(self, message: str, record_id: str) -> None:
        super().__init__(message)
        self.record_id = record_id


def read(fn: F) -> F:
    """Tag a toolkit method as a read-only tool."""
    fn._tool_kind = "read"  # type: ignore[attr-defined]
    return fn


def write(fn: F) -> F:
    """Tag a toolkit method as a tool that changes the world."""
    fn._tool_kind = "write"  # type: ignore[attr-defined]
    return fn


def service_args(*names: str) -> Callable[[F], F]:
    """Mark parameters of a tool as a service's fidelity switches (`status_word`, `as_written`...): what an imported
    service does that the app does not by itself. They are left out of the tool's schema and refused in a call of
    the built-in tool, so that generated environments show and take what the app does; a spec's declared tool bound
    to the operation enables them (`coworkenv.bindings`: its arguments and defaults may fill them), as an importer's
    bindings do. Each must have a default (what the app does)."""

    def mark(fn: F) -> F:
        fn._service_args = names  # type: ignore[attr-defined]
        return fn

    return mark


class Toolkit:
    """Base of every app's toolkit: the tools of one app, bound to a world."""

    app: ClassVar[str]

    def __init__(self, world: World) -> None:
        self.world = world

    def require(self, table: str, record_id: str, what: str, hint: str) -> Any:
        """The record `record_id` of `table`, or a ToolError saying how to find valid ids."""
        record = self.world.table(self.app, table).get(record_id)
        if record is None:
            raise NoRecord(f"no {what} with id {record_id!r}; {hint}", record_id)
        return record

    def require_shown(self, table: str, record_id: str, what: str, hint: str) -> Any:
        """As `require`, for a table whose records may be shown under another id (`shown_id`, indexed as `shown`),
        as a service numbering new records by their count shows a held id again after a delete: the first added of
        the records shown under `record_id`, else the record of that id unless it is shown under another."""
        rows = self.world.table(self.app, table)
        shown = rows.key("shown").ids(record_id)
        if shown:
            return rows.get(min(shown, key=rows.insertion_numbers().__getitem__) if len(shown) > 1 else next(iter(shown)))
        record = self.require(table, record_id, what, hint)
        if getattr(record, "shown_id", None) not in (None, record_id):
            raise NoRecord(f"no {what} with id {record_id!r}; {hint}", record_id)
        return record

    def put(self, table: str, record: Record) -> None:
        self.world.table(self.app, table).put(record)

    def rows(self, table: str) -> Iterable[Any]:
        return iter(self.world.table(self.app, table))


@dataclass(frozen=True)
class ToolDef:
    """A tool's identity, tag, argument model and OpenAI function schema."""

    name: str
    app: str
    method: str
    kind: ToolKind
    description: str
    params: type[BaseModel]

    def openai_schema(self) -> dict[str, Any]:
        # Generating the schema costs ~1 ms; build it once, hand out a fresh copy each time.
        return orjson.loads(_schema_bytes(self))  # type: ignore[no-any-return]

    @property
    def op(self) -> str:
        """The app operation the tool runs (for a built-in tool, its own name)."""
        return self.name

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The call's keyword arguments after validation; raises ValidationError or ToolError."""
        # the model's validator itself (what model_validate runs), without the classmethod's wrapping
        return dict(self.params.__pydantic_validator__.validate_python(arguments).__dict__)  # exactly the fields

    def run(self, kits: Mapping[str, Toolkit], kwargs: dict[str, Any]) -> Any:
        """Run the tool on the toolkits of a world with validated arguments; raises ToolError."""
        return getattr(kits[self.app], self.method)(**kwargs)

    def run_for_values(self, kits: Mapping[str, Toolkit], kwargs: dict[str, Any]) -> Any:
        """`run`, for a caller that reads the result's values (a declared tool reshaping its op's rows): its rows are
        dicts even inside a rendering call (see RENDERING)."""
        token = RENDERING.set(False)
        try:
            return self.run(kits, kwargs)
        finally:
            RENDERING.reset(token)


@cache
def _schema_bytes(tool: ToolDef) -> bytes:
    return orjson.dumps({
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": _parameters(tool.params)},
    })


def _parameters(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    return _strip_titles(schema)  # type: ignore[no-any-return]


def _strip_titles(node: Any) -> Any:
    # Titles duplicate the property names and cost prompt tokens.
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def _tool_def(app: str, method: Callable[..., Any], *, service: bool = False) -> ToolDef:
    """The tool of a toolkit method; `service`: with its service arguments (see `service_args`) in its schema."""
    doc = docstring_parser.parse(inspect.getdoc(method) or "")
    param_docs = {p.arg_name: p.description or "" for p in doc.params}
    hints = get_type_hints(method)
    hidden = () if service else getattr(method, "_service_args", ())
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(method).parameters.items():
        if name == "self":
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        if name in hidden:
            if default is ...:
                raise TypeError(f"{app}_{method.__name__}: service argument {name!r} has no default; give it the "
                                "app's own behaviour as its default")
            continue
        fields[name] = (hints[name], Field(default, description=param_docs.get(name) or None))
    description = doc.short_description or method.__name__
    if doc.long_description:
        description = f"{description} {doc.long_description}"
    model = create_model(  # type: ignore[call-overload]
        f"{app}_{method.__name__}_args", __config__=ConfigDict(extra="forbid"), **fields
    )
    return ToolDef(f"{app}_{method.__name__}", app, method.__name__, method._tool_kind, description, model)  # type: ignore[attr-defined]


def _toolkit_defs(toolkit: type[Toolkit], *, service: bool = False) -> tuple[ToolDef, ...]:
    return tuple(
        _tool_def(toolkit.app, fn, service=service)
        for _, fn in inspect.getmembers(toolkit, inspect.isfunction)
        if getattr(fn, "_tool_kind", None) and (not service or getattr(fn, "_service_args", ()))
    )


def tool_catalog(apps: Mapping[str, AppDef]) -> dict[str, ToolDef]:
    """Every tool of the given apps by name, as an agent sees it (without service arguments: see `service_args`)."""
    return {d.name: d for app in apps.values() for d in _toolkit_defs(app.toolkit)}


def service_variants(apps: Mapping[str, AppDef]) -> dict[str, ToolDef]:
    """The tools of the given apps that have service arguments (see `service_args`), taking them: the operations a
    spec's declared tools run (the rest run as `tool_catalog` gives them)."""
    return {d.name: d for app in apps.values() for d in _toolkit_defs(app.toolkit, service=True)}


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call produced: a JSON-ready result, or an error message."""

    ok: bool
    result: Any = None
    error: str | None = None
    body: dict[str, Any] | str | None = None  # a failure's answer other than `{"error": error}` (`ToolError.body`)

    def observation(self) -> Any:
        if self.ok:
            return self.result
        return self.body if self.body is not None else {"error": self.error}

    def shown(self) -> str:
        """The text of the tool message: the observation's JSON, or a failure's text body as it is (a service's
        plain-text answer, such as a crashed handler's `Internal Server Error`, is not a JSON string)."""
        return shown_text(self.observation(), self.ok)


def shown_text(observation: Any, ok: bool) -> str:
    """The text an agent is shown for a call's observation (`ToolOutcome.shown`)."""
    return observation if isinstance(observation, str) and not ok else orjson.dumps(observation).decode()


@dataclass(frozen=True)
class Dispatcher:
    """How the system an env's tools stand for reads a call before any tool runs, where it differs from the env's
    own reading (`ToolBox`'s `dispatcher`: an imported benchmark's runner and dispatcher)."""

    unknown: Callable[[str], ToolOutcome]  # the answer to a call of a tool not exposed (its name given)
    unreadable_as_empty: bool = False  # arguments that are no JSON at all are read as `{}`, not refused
    # The text the agent is shown for an answer (its observation, whether the call succeeded, and the env's own text
    # of it: `shown_text`, a body's compact JSON or a failure's text as it is); None: the env's own text. The audit
    # keeps the answer itself (the service's body), as the system's record does.
    shows: Callable[[Any, bool, str], str] | None = None


class DispatcherText(str):
    """A text the dispatcher itself shows the agent, as it is (its answer to a tool it does not know), not a service's
    body for `Dispatcher.shows` to render."""


def _readable_or_empty(arguments: str) -> str:
    """The arguments as given where they are JSON, else `{}` (`Dispatcher.unreadable_as_empty`)."""
    try:
        orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return "{}"
    return arguments


class ToolBox:
    """The tools exposed to an agent in one world. Calls never raise: failures become ToolOutcomes."""

    def __init__(self, world: World, catalog: Mapping[str, ToolDef], exposed: Iterable[str],
                 dispatcher: Dispatcher | None = None) -> None:
        """`dispatcher`: how the system the tools stand for reads a call before any tool runs (an imported
        benchmark's runner); None: the env's own reading and errors."""
        self.world = world
        self.dispatcher = dispatcher
        self.catalog = catalog
        self.exposed = tuple(exposed)
        self._exposed = {name: self.catalog[name] for name in self.exposed if name in self.catalog}
        self._kits = {name: app.toolkit(world) for name, app in world.apps.items()}

    def defs(self) -> list[ToolDef]:
        return [self.catalog[name] for name in self.exposed]

    def openai_tools(self) -> list[dict[str, Any]]:
        """The exposed tools in OpenAI function-calling format."""
        return [d.openai_schema() for d in self.defs()]

    def tool(self, name: str) -> ToolDef | None:
        """The exposed tool of this name, or None."""
        return self._exposed.get(name)

    def call(self, name: str, arguments: Mapping[str, Any] | str | None, *, rendered: bool = False) -> ToolOutcome:
        """Run a tool. `rendered=True`: the result is only ever serialized with `orjson.dumps` (which gives the JSON
        of the plain result, byte for byte), so rows of it may be `orjson.Fragment`s rather than dicts."""
        tool = self._exposed.get(name)
        if tool is None:
            if self.dispatcher is not None:
                return self.dispatcher.unknown(name)
            return ToolOutcome(False, error=f"unknown tool {name!r}; available tools: {', '.join(self.exposed)}")
        if self.dispatcher is not None and self.dispatcher.unreadable_as_empty and isinstance(arguments, str):
            arguments = _readable_or_empty(arguments)
        try:
            kwargs = tool.validate(_decode_arguments(arguments))
        except ToolError as exc:
            return ToolOutcome(False, error=str(exc), body=exc.body)
        except ValidationError as exc:
            return ToolOutcome(False, error=f"invalid arguments for {name}: {validation_summary(exc)}")
        token = RENDERING.set(True) if rendered else None
        try:
            result = tool.run(self._kits, kwargs)
        except ToolError as exc:
            return ToolOutcome(False, error=str(exc), body=exc.body)
        finally:
            if token is not None:
                RENDERING.reset(token)
        return ToolOutcome(True, result=result)


def _decode_arguments(arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError as exc:
            raise ToolError(f"arguments are not valid JSON ({exc}); send a JSON object") from None
        if not isinstance(decoded, dict):
            raise ToolError("arguments must be a JSON object")
        return decoded
    return dict(arguments)


def validation_summary(exc: ValidationError) -> str:
    """The first few errors of a pydantic validation as `field: message` parts."""
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)
