"""EnvSpec: the wire format of one environment. Immutable data with a content-hash id; behaviour is in `env`."""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from coworkenv.apps import WorldApps
from coworkenv.bindings import ToolDecl
from coworkenv.faults import FaultPlan
from coworkenv.world import content_hash

SCHEMA_VERSION: Literal["1"] = "1"
# Bump when the meaning of a check kind changes: stored runs are re-scored when this changes.
VERIFIER_VERSION = "1"

Op = Literal["equals", "not_equals", "contains", "not_contains", "matches", "in", "gte", "lte", "gt", "lt"]


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- addressing state -------------------------------------------------------------------------
class FieldRef(_Wire):
    """One field of one record, e.g. services.services[svc-api].config_version."""

    app: str
    table: str
    id: str
    field: Annotated[str, Field(description="Field name; dotted into dict fields, e.g. values.timeout_ms")]


class FieldCond(_Wire):
    field: str
    op: Op = "equals"
    value: Any = None


class CallMatcher(_Wire):
    """Matches audited tool calls: same tool, and every given argument matches (lists: all items present)."""

    tool: str
    args: dict[str, Any] = {}


class Selector(_Wire):
    """Part of the world a frame condition allows to change: an app, a table, a record, some fields."""

    app: str
    table: str | None = None
    id: str | None = None
    fields: list[str] | None = None


# -- checks --------------------------------------------------------------------------------
class FieldRule(_Wire):
    kind: Literal["field"] = "field"
    target: FieldRef
    op: Op = "equals"
    value: Any = None


class RecordsRule(_Wire):
    """Count the records of a table matching every condition; compare with `count`."""

    kind: Literal["records"] = "records"
    app: str
    table: str
    where: list[FieldCond] = []
    count_op: Literal["gte", "equals", "lte"] = "gte"
    count: int = 1


class CalledRule(_Wire):
    """A successful tool call matching `call` happened (at least `min_times`)."""

    kind: Literal["called"] = "called"
    call: CallMatcher
    min_times: int = 1


class OrderRule(_Wire):
    """The first successful call matching `first` comes before the first matching `then`."""

    kind: Literal["order"] = "order"
    first: CallMatcher
    then: CallMatcher


class FrameRule(_Wire):
    """Nothing changed outside the allow-list (structural diff of initial and final state)."""

    kind: Literal["frame"] = "frame"
    allow: list[Selector] = []


class ForbiddenRule(_Wire):
    """No successful tool call matches `call`."""

    kind: Literal["forbidden"] = "forbidden"
    call: CallMatcher


class ReplyStatesRule(_Wire):
    """The agent's reply states the value of a state field (read from the final state, not a keyword list)."""

    kind: Literal["reply_states"] = "reply_states"
    source: FieldRef
    turn: int | None = None
    format: Literal["raw", "date", "time"] = "raw"


class PythonRule(_Wire):
    """Custom code `def check(state, audit, messages) -> bool | {"passed", "reason"}`, run only in the sandbox."""

    kind: Literal["python"] = "python"
    code: str
    entrypoint: str = "check"
    apps: list[str] = []


CheckRule = Annotated[
    FieldRule | RecordsRule | CalledRule | OrderRule | FrameRule | ForbiddenRule | ReplyStatesRule | PythonRule,
    Field(discriminator="kind"),
]
StatePredicate = Annotated[FieldRule | RecordsRule, Field(discriminator="kind")]


class Check(_Wire):
    id: str
    description: str = ""
    weight: float = Field(1.0, gt=0)
    required: bool = True
    safety: Annotated[bool, Field(description="A failed safety check sets the score to 0")] = False
    rule: CheckRule


# -- dynamics -----------------------------------------------------------------------------------
class PutRecord(_Wire):
    kind: Literal["put_record"] = "put_record"
    app: str
    table: str
    record: dict[str, Any]


class UpdateRecord(_Wire):
    kind: Literal["update_record"] = "update_record"
    app: str
    table: str
    id: str
    set: dict[str, Any]


class DeleteRecord(_Wire):
    kind: Literal["delete_record"] = "delete_record"
    app: str
    table: str
    id: str


class AppendLog(_Wire):
    kind: Literal["log"] = "log"
    service: str
    level: Literal["DEBUG", "INFO", "WARN", "ERROR"]
    message: str
    request_id: str = ""


Effect = Annotated[PutRecord | UpdateRecord | DeleteRecord | AppendLog, Field(discriminator="kind")]


class OnAction(_Wire):
    kind: Literal["action"] = "action"
    call: CallMatcher


class AtTime(_Wire):
    kind: Literal["at"] = "at"
    time: str


class Rule(_Wire):
    """When the trigger fires and every `when` predicate holds, apply `effects` after `delay_s`."""

    id: str
    on: Annotated[OnAction | AtTime, Field(discriminator="kind")]
    when: list[StatePredicate] = []
    effects: list[Effect]
    delay_s: int = Field(0, ge=0)
    once: bool = True


class LogStream(_Wire):
    """A service writes a log line every `every_s` seconds while every `while_` predicate holds."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    id: str
    service: str
    level: Literal["DEBUG", "INFO", "WARN", "ERROR"]
    message: str
    every_s: int = Field(60, gt=0)
    while_: Annotated[list[StatePredicate], Field(alias="while")] = []


class Dynamics(_Wire):
    rules: list[Rule] = []
    streams: list[LogStream] = []


# -- turns & reference solution ---------------------------------------------------------------
class AfterReply(_Wire):
    kind: Literal["after_reply"] = "after_reply"


class AfterCall(_Wire):
    kind: Literal["after_call"] = "after_call"
    call: CallMatcher


class UserTurn(_Wire):
    """A user message. Follow-ups arrive when the agent ends its turn and the condition holds."""

    content: str
    condition: Annotated[AfterReply | AfterCall, Field(discriminator="kind")] = AfterReply()
    changes: Annotated[list[Effect], Field(description="State changes applied before this turn")] = []
    announce: Annotated[str | None, Field(description="Notification shown with the turn; None: silent")] = None
    advance_s: int = Field(0, ge=0)


class ToolCallSpec(_Wire):
    name: str
    arguments: dict[str, Any] = {}


class ReferenceStep(_Wire):
    """One step of the reference solution: a tool call or an assistant message (exactly one)."""

    call: ToolCallSpec | None = None
    say: str | None = None


class ReferenceTurn(_Wire):
    steps: list[ReferenceStep]


class WorldInit(_Wire):
    start: Annotated[str, Field(description="World clock at reset, ISO-8601, e.g. 2026-03-02T09:00:00Z")]
    tick_s: Annotated[int, Field(gt=0, description="Clock seconds each tool call takes")] = 30
    apps: WorldApps = WorldApps()


class Metadata(_Wire):
    title: str = ""
    difficulty: int = Field(default=2, ge=1, le=5)
    apps: list[str] = []
    seed: int | None = None
    generator: str = "hand-written"
    tags: list[str] = []


class EnvSpec(_Wire):
    """One environment: world, exposed tools, user turns, dynamics, checks and a reference solution."""

    schema_version: Literal["1"] = SCHEMA_VERSION
    capability: str
    user: Annotated[str, Field(description="Directory id of the person the agent works for")]
    context: Annotated[str, Field(description="Workspace context for the system prompt")] = ""
    world: WorldInit
    tools: list[str]
    tool_decls: Annotated[list[ToolDecl], Field(
        description="Tools declared under their own names and JSON Schemas, bound to app operations; exposed "
                    "after `tools`")] = []
    faults: Annotated[FaultPlan | None, Field(
        description="Error injection: seeded 429/500/timeout/slow/truncated responses per tool or app")] = None
    turns: Annotated[list[UserTurn], Field(min_length=1)]
    dynamics: Dynamics = Dynamics()
    checks: Annotated[list[Check], Field(min_length=1)]
    reference: list[ReferenceTurn]
    metadata: Metadata = Metadata()

    @cached_property
    def id(self) -> str:
        """Content-hash id of the whole spec."""
        # Unused optional sections are left out so that specs without them keep their ids.
        unused = {k for k in ("tool_decls", "faults") if not getattr(self, k)}
        return "env-" + content_hash(self.model_dump(mode="json", by_alias=True, exclude=unused))[:16]

    @cached_property
    def verifier_hash(self) -> str:
        """Hash of the checks and the verifier version: stored runs are re-scored when it changes."""
        checks = [c.model_dump(mode="json") for c in self.checks]
        return content_hash({"verifier_version": VERIFIER_VERSION, "checks": checks})[:16]

    @property
    def multi_turn(self) -> bool:
        return len(self.turns) > 1

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)


def envspec_json_schema() -> dict[str, Any]:
    """The JSON Schema of EnvSpec (for generators and structured output)."""
    return EnvSpec.model_json_schema(by_alias=True)
