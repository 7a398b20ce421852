"""Spec-declared tools: a tool under its own name and JSON Schema, bound to an app operation.

An imported task keeps its interface (e.g. `gmail_send_message(to: str)`) while the world runs the app's
operation (`mail_send(to: list[str])`). The binding renames arguments, converts values, adds defaults and
shapes the result. `coworkenv.binding_check.binding_issues` validates a spec's bindings.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache, cached_property
from typing import TYPE_CHECKING, Annotated, Any, Literal

import orjson
from jsonschema import Draft202012Validator
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    create_model,
    model_serializer,
    model_validator,
)

from coworkenv.apps import SERVICE_TOOLS, TOOLS
from coworkenv.apps._common import MAX_LIMIT
from coworkenv.request_models import (
    CLAW_EVAL_DISPATCHER,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    Answered,
    Framework,
    check_spans,
    connection_refused,
    extracted,
    handler_failed,
    read_request,
    refused,
    unknown_tool_error,
)
from coworkenv.tools import Dispatcher, NoRecord, ToolDef, ToolError, Toolkit, validation_summary
from coworkenv.world import KEPT_TABLE, Kept, Table, parse_time

if TYPE_CHECKING:
    from coworkenv.spec import EnvSpec

Conversion = Literal["to_list", "split", "join", "first", "str", "int", "float", "bool", "lower", "upper",
                     "time_or_none"]
# The JSON type a conversion needs (None: any) and the one it produces (None: unchanged / item type).
CONVERSIONS: dict[str, tuple[str | None, str | None]] = {
    "to_list": (None, "array"), "split": ("string", "array"), "join": ("array", "string"),
    "first": ("array", None), "str": (None, "string"), "int": (None, "integer"), "float": (None, "number"),
    "bool": (None, "boolean"), "lower": ("string", "string"), "upper": ("string", "string"),
    "time_or_none": (None, "string"),
}


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ArgBinding(_Wire):
    """Where one declared argument goes: an op parameter, after conversions and a value mapping."""

    to: Annotated[str | None, Field(description="Op parameter it fills; null: accepted and dropped")]
    convert: Annotated[list[Conversion], Field(
        description="Conversions applied in order: to_list (x -> [x]), split (comma list -> list), join "
                    "(list -> comma string), first (list -> first item), str, int, float, bool, lower, upper, "
                    "time_or_none (a time or date the op reads, else null)")] = []
    values: Annotated[dict[str, Any], Field(
        description="Value mapping applied after conversions, by the value's text, e.g. {\"high\": \"P1\"}")] = {}
    closed: Annotated[bool, Field(
        description="`values` names every value a record can hold (a list's filter): any other value matches no "
                    "record, and the call answers an empty list (as a service comparing the text would)")] = False
    unmapped: Annotated[Literal["passed", "dropped"], Field(
        description="A value `values` does not name: `passed` on to the op as it is (which may refuse it), or "
                    "`dropped`, the argument then as if not given (a write to a service that keeps any text where "
                    "the app holds a closed set of words: the rest of the write goes through)")] = "passed"
    unmapped_to: Annotated[str | None, Field(
        description="A value `values` does not name fills this op parameter instead, as written (before the "
                    "conversions): a word a service keeps as any text beside the app's closed set (a to-do's status "
                    "`blocked`), which a `closed` filter then looks for there rather than matching nothing")] = None
    kept: Annotated[str | None, Field(
        description="A write's value is also kept as written (before the conversions and `values`) as this field of "
                    "the record the write answers, as the service behind the tool stores it where the app holds it "
                    "otherwise or not at all (a ticket's `category`, a priority of any text): the answers showing "
                    "that record show it (`ResultShape.kept`). Needs a write op of an app with a `kept` table; `to` "
                    "may be null")] = None
    blank: Annotated[bool, Field(
        description="A value Python reads as false (empty text, 0, an empty list) is as if the argument were not "
                    "given: the service behind the tool tests the filter's truth (`if req.status and ...`), so an "
                    "empty status lists every record rather than none")] = False
    strict_day: Annotated[str | None, Field(
        description="The value must be a day as the service reads it, `strptime(value, \"%Y-%m-%d\")`, else the "
                    "call fails with this text, `{value}` the value as given (`Invalid date format: {value}`)")] = None

    @model_serializer(mode="wrap")
    def _without_unused_flags(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)  # bindings without them dump as before, keeping spec ids
        if not self.closed:
            data.pop("closed", None)
        if self.unmapped == "passed":
            data.pop("unmapped", None)
        if self.unmapped_to is None:
            data.pop("unmapped_to", None)
        if self.kept is None:
            data.pop("kept", None)
        if not self.blank:
            data.pop("blank", None)
        if self.strict_day is None:
            data.pop("strict_day", None)
        return data


class Case(_Wire):
    """One case of a `ResultShape.cases` field: it holds where the op's value at `path` is set (not null), or equals
    `equals` when given (no `path`: always); it gives `shows`, else that value."""

    path: Annotated[str | None, Field(description="Dotted path in the op's result; null: the case always holds")] = None
    equals: Annotated[Any, Field(description="The value the path must hold; null: any value but null")] = None
    shows: Annotated[Any, Field(description="The value shown; null: the path's value")] = None

    @model_serializer(mode="wrap")
    def _without_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None}

    def value(self, item: Any) -> tuple[bool, Any]:
        """Whether the case holds for an op's result, and what it shows then."""
        found = _at(self.path, item) if self.path is not None else None
        holds = self.path is None or (found is not None if self.equals is None else found == self.equals)
        return holds, (self.shows if self.shows is not None else found)


class ResultShape(_Wire):
    """How the op's result is shown: picked and renamed fields (of each item for a list), optionally wrapped."""

    fields: Annotated[dict[str, str], Field(
        description="Output field -> dotted path in the op's result (a number picks a list item: "
                    "tags.0); empty: the result as it is")] = {}
    wrap: Annotated[str | None, Field(description="Put the shaped result under this key")] = None
    const: Annotated[dict[str, Any], Field(
        description="Fixed fields added to the shaped result (before wrapping), e.g. {\"status\": \"draft_saved\"}: "
                    "what the interface's answer always says")] = {}
    optional: Annotated[list[str], Field(
        description="Output fields left out where the op's result has no value for them (an `error` that only a "
                    "failing answer carries), instead of shown as null")] = []
    count: Annotated[str | None, Field(
        description="Beside the wrapped list, this field holds how many items it has (a service's `total`: "
                    "{\"events\": [...], \"total\": 2}); needs `wrap`")] = None
    echo: Annotated[dict[str, str], Field(
        description="Output field -> declared argument: the call's value of it (as given, else its default) shown "
                    "beside the wrapped result, after `count`, as a service's answer repeats its request "
                    "({\"results\": [...], \"total\": 3, \"query\": \"outage\"}); needs `wrap`")] = {}

    beside: Annotated[dict[str, Any], Field(
        description="Fixed fields shown before the wrapped result, beside it: a service's write answering "
                    "{\"status\": \"updated\", \"task\": {...}} (`const` goes inside the wrap); needs `wrap`")] = {}
    given: Annotated[dict[str, str], Field(
        description="Output field -> declared argument: the call's value of it (as given, else its default) shown "
                    "in the shaped result, before `fields` (in place of a field they both name), as a service's "
                    "write answers the record it made of the request ({\"status\": \"sent\", \"message\": "
                    "{\"to\": ..., \"subject\": ...}}) or the field it set (a ticket's `resolution`)")] = {}
    stamp: Annotated[str | None, Field(
        description="Output field holding the time of the call (the world's clock, ISO 8601), last in the shaped "
                    "result: a service's record of a write saying when it was made ({..., \"timestamp\": ...}); "
                    "with `records`, only a held record naming the field shows it (in its place: a page fetched "
                    "answers `fetched_at`, a failing fetch not)")] = None
    records: Annotated[dict[str, dict[str, Any]], Field(
        description="The records a service holds, by id (`record_id`), each with its fields in the service's order: "
                    "a shaped record (of a list, each) whose id is here shows that record's fields, in its order, a "
                    "field `fields` names as the op gives it (the app's value, as writes left it; left out where "
                    "`optional` drops it) and any other as held here (a field of the service no app field holds), "
                    "so that the answer has the service's fields, no more, no fewer ({\"contact_id\", \"title\", "
                    "...} as it holds them). A record not here (one a call made) is shaped by `fields` alone; needs "
                    "`fields`")] = {}
    record_id: Annotated[str, Field(
        description="Dotted path of a record's id in the op's result (in each item of a list), for `records`")] = "id"
    loaded: Annotated[dict[str, dict[str, Any]], Field(
        description="Record id -> output field -> the value the app showed for it as the world loaded (where it "
                    "differs from the one `records` holds: a service's own words, formats and texts, e.g. "
                    "`\"to\": \"a@x.test\"` held where the app shows a list, a priority `normal` where it shows "
                    "`medium`): while the app still shows that value, the held one is shown; once a write changed "
                    "it, the app's. Needs `records`")] = {}
    values: Annotated[dict[str, dict[str, Any]], Field(
        description="Output field -> the app's value (by its text) -> the value shown, e.g. {\"priority\": "
                    "{\"p2\": \"high\"}}: a service's word for the app's (a value not named is shown as it is)")] = {}
    cases: Annotated[dict[str, list[Case]], Field(
        description="Output field -> cases tried in order, the first that holds giving its value: a service's "
                    "word made of several app fields (a to-do's `status`: its `status_word`, else `completed` "
                    "where `done`, `in_progress` where `started`, else `pending`); none holding: null")] = {}
    stamp_style: Annotated[Literal["Z", "isoformat", "date"], Field(
        description="How `stamp` writes the time: `Z` (2026-03-02T09:00:00Z), as Python's `isoformat` writes "
                    "a UTC time (2026-03-02T09:00:00+00:00), as a service stamping `datetime.now(timezone.utc)` "
                    "does, or its UTC date alone (2026-03-02, a service's `strftime(\"%Y-%m-%d\")`)")] = "Z"
    kept: Annotated[Literal["shown", "added"] | None, Field(
        description="Values the service keeps of a record as its writes gave them (`ArgBinding.kept`, "
                    "`Binding.kept_stamp`), by the record's id (`record_id`), shown in place of the shaped record's "
                    "fields of their names (held or the app's): `shown` only those the answer shows (a summary "
                    "list's), `added` also the others, after them (a whole record, as the service's record gains the "
                    "field); null: not read. Needs `fields`")] = None
    snippets: Annotated[dict[str, int], Field(
        description="Output field -> length: the field's text cut to that many characters with `...` after it, as a "
                    "service's search shows an excerpt of a record's content (`content[:150] + \"...\"`), of the "
                    "text as it is now (an update followed)")] = {}
    failing: Annotated[dict[str, str | None], Field(
        description="Output field -> dotted path in the op's result (null: shown as null): where the op's result "
                    "says why it failed (an `error`), the answer is these fields alone, in this order, as a "
                    "service's failing answer has other fields than its answer (a fetch of no page: {\"status_code\": "
                    "404, \"url\", \"error\", \"content\": null}); empty: shaped as any result")] = {}
    order: Annotated[list[str], Field(
        description="The answer's keys in the service's order (its handler's returned dict, `{\"job_id\": ..., "
                    "\"history\": ..., \"total\": ...}`): the keys it names come first, in this order, any other "
                    "after them as shaped; empty: as shaped (`beside`, `wrap`, `count`, `echo`; `given`, `fields`, "
                    "`stamp`, `const`)")] = []
    item_order: Annotated[list[str], Field(
        description="Likewise the keys of the shaped record under `wrap` (of each, a list's) in the service's order "
                    "(a made job's `{\"job_id\", \"name\", ..., \"created_by\", ...}`); needs `wrap`")] = []

    @model_validator(mode="after")
    def _beside_a_wrap(self) -> ResultShape:
        if (self.count is not None or self.echo or self.beside or self.item_order) and self.wrap is None:
            raise ValueError("`count`, `echo`, `beside` and `item_order` are shown beside or of the wrapped result: "
                             "give `wrap` too")
        if self.records and not self.fields:
            raise ValueError("`records` shows a record's fields beside those `fields` picks: give `fields` too")
        if self.loaded and not self.records:
            raise ValueError("`loaded` says when a held record's value is shown: give `records` too")
        if self.kept is not None and not self.fields:
            raise ValueError("`kept` shows kept values in place of a record's fields: give `fields` too")
        return self

    @property
    def named(self) -> set[str]:
        """The output fields read from the op's result (`fields`, `cases`)."""
        return set(self.fields) | set(self.cases)

    @model_serializer(mode="wrap")
    def _without_unused_const(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)  # shapes without the later fields dump as before (spec ids)
        for name in ("const", "optional", "count", "echo", "beside", "given", "stamp", "records", "loaded",
                     "values", "cases", "kept", "snippets", "failing", "order", "item_order"):
            if not getattr(self, name):
                data.pop(name, None)
        if self.record_id == "id":
            data.pop("record_id", None)
        if self.stamp_style == "Z":
            data.pop("stamp_style", None)
        return data


class DayWindow(_Wire):
    """A day and a number of days (declared arguments) as a time window (op parameters): from the day's 00:00 UTC
    for that many days, e.g. `date: 2026-03-02, days: 2` -> `start: 2026-03-02T00:00:00Z, end: 2026-03-04T00:00:00Z`."""

    day: Annotated[str, Field(description="Declared argument holding the day, YYYY-MM-DD (of an ISO time: its date)")]
    days: Annotated[str | None, Field(description="Declared argument holding the number of days")] = None
    default_days: Annotated[int, Field(ge=0, description="Number of days when `days` is not given")] = 1
    start: Annotated[str, Field(description="Op parameter the window start fills")]
    end: Annotated[str, Field(description="Op parameter the window end fills")]
    strict: Annotated[str | None, Field(
        description="The day is read as the service reads it, `strptime(day, \"%Y-%m-%d\")` (a time after it is "
                    "refused), else the call fails with this text, `{day}` the argument as given (`Invalid date "
                    "format: {day}`); and a count of days under one lists nothing (an empty window) rather than "
                    "failing")] = None

    @model_serializer(mode="wrap")
    def _without_strict(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)  # windows without it dump as before (spec ids)
        if self.strict is None:
            data.pop("strict", None)
        return data

    def read_day(self, value: Any) -> date:
        """The window's first day of a call's value, read strictly (`strict`) or from its first ten characters."""
        if self.strict is None:
            return _day(value, self.day)
        return _strict_day(value, self.strict.replace("{day}", "{value}"))

    def empty(self, arguments: Mapping[str, Any]) -> bool:
        """Whether a strict window of the call holds no day (a count of days under one)."""
        days = arguments.get(self.days) if self.days else None
        return self.strict is not None and self.day in arguments and isinstance(days, int) and days < 1


class ItemFilter(_Wire):
    """How an item of an op's list is tested against a declared argument's value (`Binding.item_filters`)."""

    path: Annotated[str, Field(description="Dotted path of the field tested in each item")]
    within: Annotated[bool, Field(
        description="false: the field holds the value exactly, letter case too (`p[\"category\"] != req.category`); "
                    "true: the value's text occurs within the field's (`req.department in c[\"department\"]`; "
                    "empty text: every item)")] = False


class Cut(_Wire):
    """A list cut as a service's `results[:n]` cuts it (`Binding.cut`): 0 lists none, a negative n all but the last
    -n; the op, given no limit of its own, lists them all (the argument's binding names the op's limit parameter)."""

    argument: Annotated[str, Field(description="Declared argument holding n")]
    total: Annotated[bool, Field(
        description="The shape's `count` is the number of items before the cut (a service answering the first n of a "
                    "job's history beside the whole history's `total`)")] = False


class Binding(_Wire):
    """The app operation a declared tool runs and how its arguments and result are translated."""

    op: Annotated[str, Field(description="A built-in app operation (tool name), e.g. mail_send")]
    args: Annotated[dict[str, ArgBinding | str], Field(
        description="Declared argument -> binding; a string is a plain rename to that op parameter")] = {}
    defaults: Annotated[dict[str, Any], Field(
        description="Op parameter -> value used when no declared argument gives it")] = {}
    windows: Annotated[list[DayWindow], Field(
        description="Day-based arguments turned into a time window (their `args` entries map them to null)")] = []
    result: ResultShape = ResultShape()
    unserved: Annotated[str | None, Field(
        description="Every call fails with this error: the tool is offered by name, but the service it stands for "
                    "does not serve it (an imported task's tool whose endpoint the source service lacks). The op "
                    "only names the app; the arguments may all map to null")] = None

    undeclared: Annotated[list[str], Field(
        description="Arguments the tool takes though its schema does not list them (the service it stands for reads "
                    "them: an agent that passes them anyway is served); `args` and `windows` may name them")] = []
    requires: Annotated[list[str], Field(
        description="Arguments (declared or undeclared) every call must give, whatever the schema says: a call "
                    "without one fails, as the service behind the tool refuses it")] = []
    schema_required: Annotated[bool, Field(
        description="false: the schema's `required` only documents; a call may leave such an argument out, as the "
                    "service behind the tool fills it in (its request model's default), and `requires` alone says "
                    "what every call must give")] = True
    service_defaults: Annotated[dict[str, Any] | None, Field(
        description="Declared argument -> the value a call that omits it gets, in place of the schema's `default`s "
                    "(which then only document): what the service behind the tool fills in (null: the schema's)")] = None
    kept_stamp: Annotated[str | None, Field(
        description="The time of the call, written as `result.stamp_style` writes it, is kept as this field of the "
                    "record the write answers (see `ArgBinding.kept`): a record the service makes stamped as it "
                    "stamps it (`created_at`), shown so by later answers")] = None
    kept_fresh: Annotated[bool, Field(
        description="The write makes the record it answers: the values it keeps replace any its id held (a deleted "
                    "record's, whose id the app hands out again), instead of joining them, and the record keeps the "
                    "fields its answer shows, in that order, with the fixed ones (`result.const`) the app does not "
                    "hold (a created event's `recurring: false`): a later answer showing it whole "
                    "(`ResultShape.kept` `added`) shows those fields, as the service holds the record it made")] = False
    not_found: Annotated[str | None, Field(
        description="A call naming a record no table holds fails with this text, `{name}` standing for the declared "
                    "argument `name` as given (`Ticket {ticket_id} not found`), as the service behind the tool "
                    "answers an unknown id, where the app's error would name its own tools; only when the missing "
                    "id is one of those arguments' values")] = None
    cut: Annotated[Cut | None, Field(
        description="A declared argument whose value cuts the op's list as the service's `results[:n]` does")] = None
    item_filters: Annotated[dict[str, ItemFilter], Field(
        description="Declared argument -> how each item of the op's list is tested against its value, as the "
                    "service compares the text where the op does otherwise (ignores case, or takes no such filter): "
                    "an item failing it is not listed")] = {}
    framework: Annotated[Framework | None, Field(
        description="How the web service behind the tool answers before and around its handler (its request model "
                    "reading each call in place of the declared schema, its 422, 404 and 500 answers), worded as its "
                    "framework words them (`coworkenv.request_models`); null: the env's own answers")] = None

    @model_serializer(mode="wrap")
    def _without_unused_windows(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Bindings without windows (or the later fields) dump as before those existed: the ids of specs holding them stay.
        data: dict[str, Any] = handler(self)
        for name in ("windows", "undeclared", "requires", "item_filters"):
            if not getattr(self, name):
                data.pop(name, None)
        for name in ("unserved", "service_defaults", "kept_stamp", "not_found", "cut", "framework"):  # (None: as before)
            if getattr(self, name) is None:
                data.pop(name, None)
        if self.schema_required:
            data.pop("schema_required", None)
        if not self.kept_fresh:
            data.pop("kept_fresh", None)
        return data

    @property
    def keeps(self) -> bool:
        """Whether a call keeps values of its record (`ArgBinding.kept`, `kept_stamp`, `kept_fresh`)."""
        return self.kept_stamp is not None or self.kept_fresh or any(
            isinstance(a, ArgBinding) and a.kept is not None for a in self.args.values())

    def arg(self, name: str) -> ArgBinding | None:
        """The binding of a declared argument, shorthand expanded."""
        value = self.args.get(name)
        return ArgBinding(to=value) if isinstance(value, str) else value


class ToolDecl(_Wire):
    """A tool the spec declares under its own name and JSON Schema, bound to an app operation."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="Tool name the agent calls")]
    description: str = ""
    parameters: Annotated[dict[str, Any], Field(
        description="JSON Schema (type object) of the arguments, shown to the agent exactly")] = {
        "type": "object", "properties": {}}
    bind: Binding


# -- runtime --------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DeclaredTool(ToolDef):
    """A ToolDef whose schema is the declared one and whose calls run the bound op through the binding."""

    decl_json: str  # the ToolDecl as JSON (a hashable, exact copy)
    bound: ToolDef

    @cached_property
    def decl(self) -> ToolDecl:
        return ToolDecl.model_validate_json(self.decl_json)

    @property
    def op(self) -> str:
        return self.bound.name

    def openai_schema(self) -> dict[str, Any]:
        d = self.decl
        return {"type": "function", "function": {"name": d.name, "description": d.description,
                                                 "parameters": orjson.loads(orjson.dumps(d.parameters))}}

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        bind, framework = self.decl.bind, self.decl.bind.framework
        if bind.unserved is not None and framework is not None and not framework.refusals:  # no route: answered
            raise _unserved(bind, self.name)  # before any body is read (a handler's refusal reads it first)
        if framework is not None and framework.request_model is not None:  # its model reads the call, not the schema
            arguments = read_request(framework.request_model, arguments)
            errors = []
        else:
            errors = sorted(_validator(self.decl_json).iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            parts = [f"{'.'.join(str(p) for p in e.path) or '(arguments)'}: {e.message}" for e in errors[:5]]
            raise ToolError(f"invalid arguments for {self.name}: {'; '.join(parts)}")
        props = self.decl.parameters.get("properties", {})
        defaults = self.decl.bind.service_defaults
        if defaults is None:
            defaults = {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}
        return {**{k: copy.deepcopy(v) if isinstance(v, list | dict) else v for k, v in defaults.items()}, **arguments}

    def run(self, kits: Mapping[str, Toolkit], kwargs: dict[str, Any]) -> Any:
        if self.decl.bind.unserved is not None:
            framework = self.decl.bind.framework
            if framework is not None and framework.documents:  # a file its handler serves (no refusal names it)
                served = extracted(framework.documents, kwargs)
                if served is not None:
                    return served
            raise _unserved(self.decl.bind, self.name, kwargs)
        missing = [name for name in self.decl.bind.requires if name not in kwargs]
        if missing:  # the service refuses the request (a 422 there), whatever the declared schema requires
            raise ToolError(f"invalid arguments for {self.name}: {', '.join(missing)}: field required by the service "
                            f"{'(not in the schema, but taken)' if set(missing) & set(self.decl.bind.undeclared) else ''}"
                            .rstrip())
        if matches_nothing(self.decl.bind, kwargs):
            return shape_result(self.decl.bind.result, [], kwargs)
        framework = self.decl.bind.framework
        if framework is not None and framework.day_spans:
            kit = kits.get(self.bound.app)
            check_spans(framework.day_spans, kwargs, kit.world.now_iso if kit is not None else None)
        op_args = bind_arguments(self.decl.bind, kwargs)
        if any(w.empty(kwargs) for w in self.decl.bind.windows):  # (its day read first: a bad one fails)
            return shape_result(self.decl.bind.result, [], kwargs)
        try:
            validated = self.bound.validate(op_args)
        except ValidationError as exc:  # the binding produced arguments the op rejects: say so in declared terms
            raise ToolError(f"invalid arguments for {self.name}: {validation_summary(exc)}") from None
        shape = self.decl.bind.result
        cut = _cut(self.decl.bind, kwargs, validated)
        # Picking fields reads the op's rows; a result only wrapped may keep them as rendered JSON (see RENDERING).
        try:
            result = self.bound.run_for_values(kits, validated) if shape.fields else self.bound.run(kits, validated)
        except NoRecord as exc:
            raise _not_found(self.decl.bind, kwargs, exc) from None
        except ToolError as exc:
            if exc.body is None and framework is not None and any(t in str(exc) for t in framework.handler_fails):
                raise handler_failed(str(exc)) from None  # (the app's text audited: it says why)
            raise
        if self.decl.bind.item_filters and isinstance(result, list):
            result = [item for item in result if _kept_item(self.decl.bind, kwargs, item)]
        counted = None
        if cut is not None and isinstance(result, list):
            counted = len(result) if self.decl.bind.cut is not None and self.decl.bind.cut.total else None
            result = result[:cut]
        kit = kits.get(self.bound.app)
        now = kit.world.now_iso if kit is not None else None
        if now is not None and shape.stamp_style == "isoformat":
            now = now.removesuffix("Z") + "+00:00"
        elif now is not None and shape.stamp_style == "date":
            now = now[:10]
        if kit is None or (shape.kept is None and not self.decl.bind.keeps):
            return shape_result(shape, result, kwargs, now if shape.stamp else None, counted=counted)
        table = kit.world.table(self.bound.app, KEPT_TABLE)
        record_id = _at(shape.record_id, result)
        if self.decl.bind.keeps:
            _keep(table, self.decl, record_id, kwargs, now)
        answer = shape_result(shape, result, kwargs, now if shape.stamp else None,
                              {row.id: row for row in table} if shape.kept is not None else None, counted)
        made = answer.get(shape.wrap) if shape.wrap and isinstance(answer, dict) else answer
        if self.decl.bind.kept_fresh and isinstance(made, dict) and isinstance(record_id, str | int):
            held = table.get(str(record_id))
            # and the fields it showed as the call gave them (`given`: a creator as given, none when not)
            fixed = {**{k: v for k, v in shape.const.items() if k not in shape.named},
                     **{k: made.get(k) for k in shape.given if k not in shape.named}}
            table.put(Kept.of(str(record_id), {**fixed, **(held.kept if held else {})}, list(made)))
        return answer


def _cut(binding: Binding, arguments: Mapping[str, Any], op_args: dict[str, Any]) -> int | None:
    """The `n` of a call's `results[:n]` (`Binding.cut`), the op's limit then lifted so that it lists them all;
    None: no cut (the op's own limit, if any, applies)."""
    if binding.cut is None:
        return None
    n = arguments.get(binding.cut.argument)
    if not isinstance(n, int) or isinstance(n, bool):
        return None
    arg = binding.arg(binding.cut.argument)
    if arg is not None and arg.to is not None and arg.to in op_args:
        op_args[arg.to] = MAX_LIMIT
    return n


def _kept_item(binding: Binding, arguments: Mapping[str, Any], item: Any) -> bool:
    """Whether an item of the op's list passes the call's `Binding.item_filters`."""
    for name, test in binding.item_filters.items():
        arg = binding.arg(name)
        value = arguments.get(name)
        if value is None or (arg is not None and arg.blank and not value):
            continue
        held = _at(test.path, item)
        if not (str(value) in str(held or "") if test.within else held == value):
            return False
    return True


def _not_found(binding: Binding, arguments: Mapping[str, Any], exc: NoRecord) -> ToolError:
    """The error of a call naming no record: as the service words it (`Binding.not_found`) when the missing id is
    one the text names, else the app's."""
    text = binding.not_found
    if text is None:
        return exc
    names = re.findall(r"\{(\w+)\}", text)
    if not any(str(arguments.get(n)) == exc.record_id for n in names):
        return exc
    return ToolError(re.sub(r"\{(\w+)\}", lambda m: str(arguments.get(m.group(1))), text))


def _unserved(bind: Binding, name: str, arguments: Mapping[str, Any] | None = None) -> ToolError:
    """The failure of a call of a tool whose service lacks its route (or has it for another method: a 405, audited
    as its body's JSON), or whose handler refuses every call it is given (`Framework.refusals`)."""
    if bind.framework is not None and bind.framework.refusals:
        answer = refused(bind.framework.refusals, dict(arguments or {}))
        if answer is not None:
            return answer
    if bind.framework is not None and bind.framework.method_not_allowed:
        return Answered(METHOD_NOT_ALLOWED)
    if bind.framework is not None and bind.framework.no_endpoint:  # the dispatcher's own answer: no service called
        return unknown_tool_error(name)
    if bind.framework is not None and bind.framework.unreachable:  # the dispatcher's request reaches no service
        return connection_refused()
    return Answered(NOT_FOUND, bind.unserved) if bind.framework is not None else ToolError(bind.unserved)


@cache
def _validator(decl_json: str) -> Draft202012Validator:
    decl = orjson.loads(decl_json)
    schema = decl["parameters"]
    if decl["bind"].get("schema_required") is False:  # the service decides what a call must give (`requires`)
        schema = {k: v for k, v in schema.items() if k != "required"}
    return Draft202012Validator(schema)


def convert(value: Any, conversion: str) -> Any:
    """Apply one named conversion; raises ToolError when the value does not fit it."""
    try:
        if conversion == "to_list":
            return value if isinstance(value, list) else [value]
        if conversion == "split":
            return [part.strip() for part in str(value).split(",") if part.strip()]
        if conversion == "join":
            return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        if conversion == "first":
            return value[0] if isinstance(value, list) and value else value
        if conversion == "str":
            return str(value)
        if conversion == "int":
            return int(value)
        if conversion == "float":
            return float(value)
        if conversion == "bool":
            return value.strip().lower() in ("true", "yes", "1") if isinstance(value, str) else bool(value)
        if conversion == "lower":
            return str(value).lower()
        if conversion == "upper":
            return str(value).upper()
        if conversion == "time_or_none":  # a time (or a date) the op reads, else none: any other text a service
            # keeps as written (`ArgBinding.kept`) leaves the app's field unset
            return value if isinstance(value, str) and _reads_as_time(value) else None
    except (TypeError, ValueError) as exc:
        raise ToolError(f"cannot convert {value!r} with {conversion}: {exc}") from None
    raise ValueError(f"unknown conversion {conversion!r}")


def _reads_as_time(value: str) -> bool:
    try:
        parse_time(f"{value}T00:00:00Z" if re.fullmatch(r"\d{4}-\d\d-\d\d", value) else value)
    except ValueError:
        return False
    return True


def bind_arguments(binding: Binding, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The op's arguments for a declared call: renamed, converted, mapped, with defaults for the rest."""
    out: dict[str, Any] = {}
    for name, value in arguments.items():
        arg = binding.arg(name)
        if arg is None or arg.to is None or (arg.blank and not value):
            continue
        if arg.strict_day is not None:
            _strict_day(value, arg.strict_day)
        written = value
        for conversion in arg.convert:
            value = convert(value, conversion)
        if arg.values:
            if arg.unmapped_to is not None and value_key(value) not in arg.values:
                out[arg.unmapped_to] = written
                continue
            if arg.unmapped == "dropped" and value_key(value) not in arg.values:
                continue
            value = arg.values.get(value_key(value), value)
        # several declared arguments filling one list parameter add up (status, tier, industry -> tags)
        both_lists = isinstance(out.get(arg.to), list) and isinstance(value, list)
        out[arg.to] = out[arg.to] + value if both_lists else value
    for window in binding.windows:
        if window.day in arguments:
            first = window.read_day(arguments[window.day])
            days = arguments.get(window.days, window.default_days) if window.days else window.default_days
            try:
                last = first + timedelta(days=int(days))
            except (TypeError, ValueError, OverflowError):
                raise ToolError(f"{window.days}: {days!r} is not a number of days") from None
            out[window.start], out[window.end] = (f"{d.isoformat()}T00:00:00Z" for d in (first, last))
    return {**binding.defaults, **out}


def matches_nothing(binding: Binding, arguments: Mapping[str, Any]) -> bool:
    """Whether a call filters by a value outside a closed argument's `values`, which no record holds."""
    for name, value in arguments.items():
        arg = binding.arg(name)
        if arg is None or not arg.closed or arg.unmapped_to is not None or (arg.blank and not value):
            continue
        for conversion in arg.convert:
            value = convert(value, conversion)
        if value_key(value) not in arg.values:
            return True
    return False


def _strict_day(value: Any, error: str) -> date:
    """A day as a service's `strptime(value, "%Y-%m-%d")` reads it, else a ToolError of `error` (`{value}`: the
    value as given)."""
    try:
        return datetime.strptime(str(value), "%Y-%m-%d").date()
    except ValueError:
        raise ToolError(error.replace("{value}", str(value))) from None


def _day(value: Any, name: str) -> date:
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        raise ToolError(f"{name}: {value!r} is not a date (YYYY-MM-DD)") from None


def value_key(value: Any) -> str:
    """The text a value is looked up by in an ArgBinding's `values`."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def _keep(table: Table[Any], decl: ToolDecl, record_id: Any, arguments: Mapping[str, Any], now: str | None) -> None:
    """Keep the values of a declared write the service keeps as written (`ArgBinding.kept`, `Binding.kept_stamp`)
    with the record it answers, in the order of the tool's parameters (the order the service sets them)."""
    if record_id is None or isinstance(record_id, dict | list):
        return
    bind = decl.bind
    order = [*decl.parameters.get("properties", {}), *arguments]
    values = {arg.kept: arguments[name] for name in dict.fromkeys(order) if name in arguments
              and (arg := bind.arg(name)) is not None and arg.kept is not None}
    if bind.kept_stamp is not None:
        values[bind.kept_stamp] = now
    if not values and not bind.kept_fresh:
        return
    held = table.get(str(record_id))
    if bind.kept_fresh or held is None:
        table.put(Kept.of(str(record_id), values))
    else:
        table.put(Kept.of(str(record_id), {**held.kept, **values}, held.fields))


def shape_result(shape: ResultShape, result: Any, arguments: Mapping[str, Any] | None = None,
                 now: str | None = None, kept: Mapping[str, Kept] | None = None, counted: int | None = None) -> Any:
    """Pick and rename fields of the op's result (of each item when it is a list), after the call's `arguments`
    the shape gives and before the call's time (`now`) it stamps, then wrap it, beside the fixed fields before it
    and its count and the call's `arguments` the shape echoes after it. `kept`: the values the service keeps of
    records, by id (`ResultShape.kept`). `counted`: the `count` shown, where it is not the list's length (a cut
    list's whole count, `Binding.cut_total`)."""
    if shape.failing and isinstance(result, dict) and result.get("error") is not None:
        return {name: _at(path, result) if path is not None else None for name, path in shape.failing.items()}
    shaped = result
    if shape.fields:
        shaped = [shown(shape, r) for r in result] if isinstance(result, list) else shown(shape, result)
        if shape.optional:
            items = shaped if isinstance(shaped, list) else [shaped]
            for item in items:
                for name in shape.optional:
                    if item.get(name) is None:
                        item.pop(name, None)
        if shape.records:
            shaped = [_as_held(shape, r, s) for r, s in zip(result, shaped, strict=True)] if isinstance(
                shaped, list) else _as_held(shape, result, shaped)
        if shape.kept is not None and kept:
            shaped = [_with_kept(shape, r, s, kept) for r, s in zip(result, shaped, strict=True)] if isinstance(
                shaped, list) else _with_kept(shape, result, shaped, kept)
    if (shape.given or shape.stamp) and not isinstance(shaped, list):
        given = {name: (arguments or {}).get(argument) for name, argument in shape.given.items()}
        picked = shaped if shape.fields and isinstance(shaped, dict) else {}
        # a field both name keeps its place among the picked ones
        shaped = {**{name: value for name, value in given.items() if name not in picked},
                  **{name: given.get(name, value) for name, value in picked.items()}}
        if shape.stamp is not None and (not shape.records or shape.stamp in shape.records.get(
                str(_at(shape.record_id, result)), {})):  # with `records`: a held record naming it alone
            shaped[shape.stamp] = now
    if shape.const and isinstance(shaped, dict):
        shaped = {**shaped, **shape.const}
    if not shape.wrap:
        return in_order(shaped, shape.order)
    if shape.item_order:
        shaped = [in_order(s, shape.item_order) for s in shaped] if isinstance(shaped, list) else in_order(
            shaped, shape.item_order)
    wrapped = {**shape.beside, shape.wrap: shaped}
    if shape.count is not None:
        wrapped[shape.count] = counted if counted is not None else len(shaped) if isinstance(
            shaped, list) else 0 if shaped is None else 1
    for name, argument in shape.echo.items():
        wrapped[name] = (arguments or {}).get(argument)
    return in_order(wrapped, shape.order)


def in_order(answer: Any, order: list[str]) -> Any:
    """The answer (a dict) with the keys `order` names first, in its order, the others after as they are."""
    if not order or not isinstance(answer, dict):
        return answer
    return {**{k: answer[k] for k in order if k in answer}, **{k: v for k, v in answer.items() if k not in order}}


def shaped_keys(shape: ResultShape, item: bool = False) -> list[str] | None:
    """The keys of the answer `shape` makes of a record (`item`: of the record under its `wrap`), in the order it
    makes them; None where they depend on the record (`records`, `optional`, `failing`) or on nothing the shape
    names. (`kept` values only take a field's place, or come after the others.)"""
    if shape.wrap and not item:
        return [*shape.beside, shape.wrap, *([shape.count] if shape.count else []), *shape.echo]
    if shape.records or shape.optional or shape.failing or not (
            shape.fields or shape.cases or shape.given or shape.const):
        return None
    named = [*shape.fields, *shape.cases]
    return list(dict.fromkeys([*[n for n in shape.given if n not in named], *named,
                               *([shape.stamp] if shape.stamp else []), *shape.const]))


def shown(shape: ResultShape, item: Any) -> dict[str, Any]:
    """The fields `shape` picks of one op result, its `cases` and `values` applied (before `records`)."""
    picked = {name: _at(path, item) for name, path in shape.fields.items()}
    for name, cases in shape.cases.items():
        picked[name] = next((v for holds, v in (c.value(item) for c in cases) if holds), None)
    for name, words in shape.values.items():
        if picked.get(name) is not None:
            picked[name] = words.get(value_key(picked[name]), picked[name])
    for name, length in shape.snippets.items():
        picked[name] = str(picked.get(name) or "")[:length] + "..."
    return picked


def _at(path: str, item: Any) -> Any:
    value = item
    for part in path.split("."):  # a number picks a list item ("tags.0"); a missing step gives None
        if isinstance(value, list) and part.isdigit():
            value = value[int(part)] if int(part) < len(value) else None
        else:
            value = value.get(part) if isinstance(value, dict) else None
    return value


def _as_held(shape: ResultShape, item: Any, shaped: dict[str, Any]) -> dict[str, Any]:
    """A shaped record as the service holds it (`ResultShape.records`): its fields in its order, those `fields`
    names as shaped; the shaped record as it is when the service holds no record of its id."""
    key = _at(shape.record_id, item)
    held = shape.records.get(str(key)) if key is not None else None
    if held is None:
        return shaped
    loaded = shape.loaded.get(str(key), {})
    named = shape.named
    # a value the app still shows as it loaded it is shown as the service holds it (its words and formats); the
    # held record names the fields shown, whatever `optional` drops
    return {name: value if name in loaded and shaped.get(name) == loaded[name] else shaped.get(name)
            if name in named else value for name, value in held.items()}


def _with_kept(shape: ResultShape, item: Any, shaped: dict[str, Any], kept: Mapping[str, Kept]) -> dict[str, Any]:
    """A shaped record with the values the service keeps of it in place of its fields (`ResultShape.kept`); shown
    whole (`added`), a record the service made has the fields it made it with."""
    key = _at(shape.record_id, item)
    entry = kept.get(str(key)) if key is not None else None
    if entry is None:
        return shaped
    values = entry.kept
    if shape.kept == "added" and entry.fields is not None:
        return {name: values[name] if name in values else shaped.get(name) for name in entry.fields}
    return {**shaped, **{name: value for name, value in values.items() if name in shaped or shape.kept == "added"}}


def declared_tool(decl: ToolDecl) -> DeclaredTool:
    """The runtime tool of a declaration (its op must exist: check with binding_issues first). The op takes its
    service arguments (`coworkenv.tools.service_args`): the binding's arguments and defaults may fill them.

    One per distinct declaration (a pure function of its JSON, kept like `_validator`'s): every episode's env and
    system prompt builds the spec's catalogue, and the argument model's `create_model` costs ~2 ms a tool."""
    decl_json = decl.model_dump_json()
    found = _DECLARED.get(decl_json)
    if found is None:
        bound = SERVICE_TOOLS[decl.bind.op]
        found = DeclaredTool(decl.name, bound.app, bound.method, bound.kind, decl.description, _args_model(decl),
                             decl_json, bound)
        if len(_DECLARED) >= 4096:  # a long-lived process meets ever new declarations: keep the recent ones
            del _DECLARED[next(iter(_DECLARED))]
        _DECLARED[decl_json] = found
    return found


_DECLARED: dict[str, DeclaredTool] = {}


def _args_model(decl: ToolDecl) -> type[BaseModel]:
    """A pydantic model naming the declared arguments (enums as Literals), for code that inspects tools.

    Calls are validated against the declared JSON Schema itself, not this model.
    """
    props = decl.parameters.get("properties", {})
    required = set(decl.parameters.get("required", []))
    fields: dict[str, Any] = {}
    for name, schema in props.items():
        enum = schema.get("enum") if isinstance(schema, dict) else None
        annotation: Any = Literal[tuple(enum)] if isinstance(enum, list) and enum else Any
        fields[name] = (annotation, ... if name in required else None)
    return create_model(f"{decl.name}_args", __config__=ConfigDict(extra="forbid"), **fields)  # type: ignore[call-overload, no-any-return]


def spec_catalog(spec: EnvSpec) -> dict[str, ToolDef]:
    """Every tool a spec can name: the built-in catalogue plus its declared tools (which take precedence)."""
    catalog: dict[str, ToolDef] = dict(TOOLS)
    for decl in spec.tool_decls:
        if decl.bind.op in TOOLS:
            catalog[decl.name] = declared_tool(decl)
    return catalog


def exposed_tools(spec: EnvSpec) -> list[str]:
    """The names the agent can call: the spec's built-in tools, then its declared tools."""
    names = list(spec.tools)
    names.extend(d.name for d in spec.tool_decls if d.name not in names)
    return names


def spec_dispatcher(spec: EnvSpec) -> Dispatcher | None:
    """How a call is read before any tool runs (`ToolBox`'s `dispatcher`): where the spec's declared tools stand for
    web services behind a dispatcher (`Binding.framework`: an imported Claw-Eval task), as its runner reads it (an
    unknown tool, arguments that are no JSON: `request_models.CLAW_EVAL_DISPATCHER`); else None, the env's own."""
    return CLAW_EVAL_DISPATCHER if any(d.bind.framework is not None for d in spec.tool_decls) else None
