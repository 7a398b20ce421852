"""EnvSpec: the wire format of one environment. Immutable data with a content-hash id; behaviour is in `env`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cached_property
from typing import Annotated, Any, Literal, Self

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from coworkenv.apps import WorldApps
from coworkenv.bindings import ToolDecl
from coworkenv.faults import FaultPlan
from coworkenv.limits import MAX_STEPS
from coworkenv.spec_checks import (
    GUARD_RULE_KINDS,
    CalledRule,
    CallMatcher,
    Check,
    CheckRule,
    FieldCond,
    FieldRef,
    FieldRule,
    ForbiddenRule,
    FrameRule,
    NumberTarget,
    Op,
    OrderRule,
    PythonRule,
    RecordsRule,
    ReplyStatesRule,
    Role,
    Scoring,
    Selector,
    StatePredicate,
    Term,
    TextNorm,
    TextRule,
    Tier,
    TiersRule,
)
from coworkenv.world import STRICT_CANONICAL, content_hash, json_form

SCHEMA_VERSION: Literal["2"] = "2"
# Bump when the meaning of a check kind or of the score changes: stored runs are re-scored when this changes.
# 2: guards carry no credit, graded checks, text checks, forbidden counts failed attempts, EnvSpec.scoring.
VERIFIER_VERSION = "2"
# Optional spec sections a spec id leaves out while unset, so that specs without them keep their ids.
UNSET_WHEN_FALSY = ("tool_decls", "faults", "max_steps", "time_limit_s", "source_prompt", "simulated_user")
# Bump when the bytes a spec id hashes change for the same spec: sealed files (which carry their id) are then
# validated and hashed again. 2: empty tables and apps with no records are left out.
SPEC_ID_SCHEME = "2"

__all__ = [
    "GUARD_RULE_KINDS", "SCHEMA_VERSION", "SPEC_ID_SCHEME", "VERIFIER_VERSION", "CallMatcher", "CalledRule", "Check", "CheckRule",
    "EnvSpec", "FieldCond", "FieldRef", "FieldRule", "ForbiddenRule", "FrameRule", "NumberTarget", "Op",
    "OrderRule", "PythonRule", "RecordsRule", "ReplyStatesRule", "Role", "Scoring", "Selector", "StatePredicate",
    "Term", "TextNorm", "TextRule", "Tier", "TiersRule", "envspec_json_schema", "migrate_spec_data",
    "schema_version_problem",
]


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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


class SimulatedUser(_Wire):
    """A user played by an LLM at run time, who answers each reply of the agent's that made no tool call, as a
    source benchmark's simulated user does (Claw-Eval's `user_agent`): each answer opens a new turn, and the user
    ends the episode when satisfied or after `max_rounds` answers. No scripted turn stands in for it."""

    form: Annotated[Literal["claw-eval"], Field(description=(
        "Whose simulator it is, its prompt and rules: `claw-eval`, Claw-Eval's `runner/user_agent.py` (its system "
        "prompt over the persona, the conversation's texts, temperature 0.7, `[DONE]` when satisfied, each answer "
        "sent as `[user_agent]` and the text)"))] = "claw-eval"
    persona: Annotated[str, Field(description="Who the user is and what they know (free text)")]
    max_rounds: Annotated[int, Field(ge=0, description="Answers the user gives at most; then a reply ends it")]


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

    schema_version: Annotated[Literal["2"], Field(description=(
        "Wire format version; older versions are migrated on load (see migrate_spec_data)"))] = SCHEMA_VERSION
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
    max_steps: Annotated[int | None, Field(ge=1, le=MAX_STEPS, description=(
        "Assistant messages an episode may take before it is cut (a source benchmark's own turn limit, such as "
        "Claw-Eval's `environment.max_turns`); every runner's own limit is lowered to it. None: the runner's"))] = None
    time_limit_s: Annotated[int | None, Field(ge=1, description=(
        "Wall-clock seconds a recorded episode may run: checked before each assistant message, past it the episode "
        "stops and is scored as it stands (a source benchmark's own clock, such as Claw-Eval's "
        "`environment.timeout_seconds`). A run limit, not part of the environment's hash. None: no clock"))] = None
    source_prompt: Annotated[bool, Field(description=(
        "True: the agent's prompt is a source benchmark's own, sent as that benchmark sends it (an imported "
        "Claw-Eval task's runner prompt): `context` is the agent's one system message, in place of the env's fixed "
        "instructions and its line on the user, the time and the apps, and the declared tools keep their declared "
        "order (not sorted by name). False: the env's own prompt, then `context`"))] = False
    simulated_user: Annotated[SimulatedUser | None, Field(description=(
        "A user an LLM plays at run time (an imported Claw-Eval task's `user_agent`), answering the agent's replies "
        "after the first turn. None: the turns are the spec's alone"))] = None
    dynamics: Dynamics = Dynamics()
    checks: Annotated[list[Check], Field(min_length=1)]
    scoring: Annotated[Scoring, Field(description="How check results compose into the score and the verdict")] = (
        Scoring()
    )
    reference: list[ReferenceTurn]
    metadata: Metadata = Metadata()

    @model_validator(mode="after")
    def _context_to_send(self) -> Self:
        if self.source_prompt and not self.context.strip():
            raise ValueError("source_prompt is true but the context is empty: the agent would get an empty system "
                             "prompt; write the system prompt into `context`, or set source_prompt to false")
        return self

    # Older schema versions are migrated here rather than in a "before" validator, which would make pydantic
    # build Python objects from JSON first (about a third slower for every spec).
    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate spec data of any known schema version (older versions are migrated first)."""
        return super().model_validate(migrate_spec_data(obj) if isinstance(obj, dict) else obj, *args, **kwargs)

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, *args: Any, **kwargs: Any) -> Self:
        """Validate spec JSON of any known schema version (older versions are migrated first)."""
        try:
            return super().model_validate_json(json_data, *args, **kwargs)
        except ValidationError:
            try:
                raw = orjson.loads(json_data)
            except orjson.JSONDecodeError:
                raw = None
            if isinstance(raw, dict) and str(raw.get("schema_version", SCHEMA_VERSION)) != SCHEMA_VERSION:
                return cls.model_validate(raw, *args, **kwargs)
            raise

    @cached_property
    def id(self) -> str:
        """Content-hash id of the whole spec."""
        # Unused optional sections are left out so that specs without them keep their ids.
        unused = {k for k in UNSET_WHEN_FALSY if not getattr(self, k)}
        # The world's records are the bulk: their field dicts are read as they are (the same JSON as dumping them).
        data = self.model_dump(mode="json", by_alias=True, exclude=unused | {"world"})
        data["world"] = {**self.world.model_dump(mode="json", by_alias=True, exclude={"apps"}),
                         "apps": _filled_tables(json_form(self.world.apps))}
        try:  # the bytes `content_hash` hashes, or an error for a value a dump would write differently
            canonical = orjson.dumps(data, option=STRICT_CANONICAL)
        except TypeError:
            data = self.model_dump(mode="json", by_alias=True, exclude=unused)
            data["world"]["apps"] = _filled_tables(data["world"]["apps"])
            return "env-" + content_hash(data)[:16]
        return "env-" + hashlib.sha256(canonical).hexdigest()[:16]

    @cached_property
    def verifier_hash(self) -> str:
        """Hash of the checks, the scoring and the verifier version: stored runs are re-scored when it changes."""
        checks = [c.model_dump(mode="json") for c in self.checks]
        scoring = self.scoring.model_dump(mode="json")
        return content_hash({"verifier_version": VERIFIER_VERSION, "checks": checks, "scoring": scoring})[:16]

    @property
    def multi_turn(self) -> bool:
        return len(self.turns) > 1

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)


def _filled_tables(apps: dict[str, Any]) -> dict[str, Any]:
    """The world's apps with their empty tables left out, and the apps left with no table: a spec id does not change
    when an app gains a table or coworkenv gains an app (ids scheme `SPEC_ID_SCHEME`)."""
    out: dict[str, Any] = {}
    for app, tables in apps.items():
        filled = {name: rows for name, rows in tables.items() if rows != []}
        if filled:
            out[app] = filled
    return out


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 -> 2. Every v1 field keeps its meaning; v2 adds check roles (a v1 frame, forbidden or safety
    check becomes a guard by the role default), graded and text rules, and `scoring` (default: Claw-Eval-like).
    The verifier's meaning changed with it (VERIFIER_VERSION 2): guards no longer earn credit."""
    return {**data, "schema_version": "2"}


# Each entry upgrades spec data from its version to the next; parse_spec and EnvSpec validation apply them.
SPEC_MIGRATIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {"1": _v1_to_v2}


def migrate_spec_data(data: dict[str, Any]) -> dict[str, Any]:
    """Spec data of any known schema version upgraded to the current one (a missing version means "1")."""
    version = str(data.get("schema_version", "1"))
    while version != SCHEMA_VERSION and version in SPEC_MIGRATIONS:
        data = SPEC_MIGRATIONS[version](data)
        version = str(data["schema_version"])
    return data  # an unknown version is left for validation to report


def schema_version_problem(data: dict[str, Any]) -> str | None:
    """What is wrong with the `schema_version` of spec data, and what to do; None when it is one this coworkenv reads
    (or absent: version 1). Pydantic's own line, "Input should be '2'", read as a defect of the spec: a spec written
    by a newer coworkenv, or a version typed as a number, was told to change to what this one knows."""
    if "schema_version" not in data:
        return None
    value = data["schema_version"]
    known = sorted({*SPEC_MIGRATIONS, SCHEMA_VERSION})
    if isinstance(value, str) and value in known:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and f"{value:g}" in known:
        return (f"schema version {value!r} is a number; write it as the string \"{value:g}\" (in quotes), as "
                "every spec file does")
    return (f"schema version {value!r} is not one this coworkenv reads ({', '.join(map(repr, known))}; "
            f"{SCHEMA_VERSION!r} is current): a spec written by a newer coworkenv loads with that version (upgrade "
            f"coworkenv); one whose version was edited by hand needs its own back")


def envspec_json_schema() -> dict[str, Any]:
    """The JSON Schema of EnvSpec (for generators and structured output)."""
    return EnvSpec.model_json_schema(by_alias=True)
