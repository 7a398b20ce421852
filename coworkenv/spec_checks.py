"""The check language of EnvSpec (wire half): rules over state, audit and the agent's text; roles; scoring.

Every model here is re-exported by `coworkenv.spec`; the behaviour that evaluates them is `coworkenv.checks`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from coworkenv.spec_regex import pattern_problem

Op = Literal["equals", "not_equals", "contains", "not_contains", "matches", "in", "gte", "lte", "gt", "lt"]
Role = Literal["completion", "guard"]
# Rule kinds that are guards unless a check says otherwise: they hold on the untouched state.
GUARD_RULE_KINDS = frozenset({"frame", "forbidden"})


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- addressing state -------------------------------------------------------------------------
class FieldRef(_Wire):
    """One field of one record, e.g. services.services[svc-api].config_version."""

    app: str
    table: str
    id: str
    field: Annotated[str, Field(description="Field name; dotted into dict fields, e.g. values.timeout_ms")]


def _matched_value(value: Any, info: ValidationInfo) -> Any:
    """The value of a `matches` comparison is a regular expression: refused when `pattern_problem` says so."""
    if info.data.get("op") == "matches":
        problem = pattern_problem(str(value))
        if problem is not None:
            raise ValueError(f"the 'matches' pattern {problem}")
    return value


class FieldCond(_Wire):
    field: str
    op: Op = "equals"
    value: Any = None

    _value = field_validator("value")(_matched_value)


class CallMatcher(_Wire):
    """Matches audited tool calls: same tool, and every given argument matches (lists: all items present)."""

    tool: Annotated[str, Field(description="A tool of the registry; it need not be exposed (\"never call X\")")]
    args: dict[str, Any] = {}
    where: Annotated[list[FieldCond], Field(description=(
        "Conditions on the call's arguments (field: an argument name, dotted into objects), e.g. "
        "[{field: text, op: contains, value: OPS-7}]"))] = []


class Selector(_Wire):
    """Part of the world a frame condition allows to change: an app, a table, a record, some fields, and
    records matching conditions (e.g. chat messages in one channel)."""

    app: str
    table: str | None = None
    id: str | None = None
    fields: list[str] | None = None
    where: Annotated[list[FieldCond], Field(description=(
        "Only records matching every condition: the record after the change, or before it if it was removed "
        "(e.g. [{field: channel, value: c-ops}] allows posts in #ops, not elsewhere); needs `table`"))] = []

    @model_validator(mode="after")
    def _where_needs_table(self) -> Selector:
        if self.where and self.table is None:
            raise ValueError("a selector with 'where' conditions names its table")
        return self


# -- state and action rules -------------------------------------------------------------------------
class FieldRule(_Wire):
    """One field of one record compares to a value (pass/fail)."""

    kind: Literal["field"] = "field"
    target: FieldRef
    op: Op = "equals"
    value: Any = None

    _value = field_validator("value")(_matched_value)


class RecordsRule(_Wire):
    """Count the records of a table matching every condition; compare with `count`."""

    kind: Literal["records"] = "records"
    app: str
    table: str
    where: list[FieldCond] = []
    count_op: Literal["gte", "equals", "lte"] = "gte"
    count: int = 1
    partial: Annotated[bool, Field(description=(
        "Graded: score min(n, count) / max(n, count) for gte/equals (records found of those expected) "
        "instead of pass/fail; lte stays pass/fail"))] = False


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
    """Nothing changed outside the allow-list (structural diff of initial and final state). A guard by default."""

    kind: Literal["frame"] = "frame"
    allow: list[Selector] = []


class ForbiddenRule(_Wire):
    """No tool call matches `call`: attempts that failed count too (the audit's `ok`). A guard by default."""

    kind: Literal["forbidden"] = "forbidden"
    call: CallMatcher
    attempts: Annotated[bool, Field(description=(
        "Count failed attempts (e.g. a call the tool rejected, or of a tool that is not exposed) as well as "
        "successful calls; false: only successful calls"))] = True


class ReplyStatesRule(_Wire):
    """The agent's reply states the value of a state field (read from the final state, not a keyword list)."""

    kind: Literal["reply_states"] = "reply_states"
    source: FieldRef
    turn: int | None = None
    format: Literal["raw", "date", "time"] = "raw"
    partial: Annotated[bool, Field(description="Graded: score the fraction of a list value's items stated")] = False


# -- text rules ---------------------------------------------------------------------------------------
Term = Annotated[
    str | list[str],
    Field(description=(
        "A keyword or phrase, or a list of alternatives that count as the same term (e.g. one word in "
        "several languages: [\"refund\", \"remboursement\", \"Erstattung\"])")),
]


class TextNorm(_Wire):
    """How the agent's text and the terms are normalised before matching (all on by default)."""

    case: Annotated[bool, Field(description="Fold case (casefold)")] = True
    whitespace: Annotated[bool, Field(description="Collapse runs of whitespace to one space, trim")] = True
    unicode: Annotated[bool, Field(description="Unicode NFKC (full-width, ligatures, non-breaking spaces)")] = True
    accents: Annotated[bool, Field(description="Strip accents and diacritics (é -> e)")] = True


class NumberTarget(_Wire):
    """A number the text must state: a literal `value` or one read from the final state (`source`)."""

    value: float | None = None
    source: FieldRef | None = None
    tolerance: Annotated[float, Field(ge=0, description="Largest accepted difference")] = 0.0
    relative: Annotated[bool, Field(description="Tolerance is a fraction of the expected value")] = False

    @model_validator(mode="after")
    def _one_target(self) -> NumberTarget:
        if (self.value is None) == (self.source is None):
            raise ValueError("a number target has exactly one of 'value' or 'source'")
        return self


class TextRule(_Wire):
    """Declarative conditions on the agent's text; every given condition must hold.

    Matching runs on normalised text (see `normalize`): terms are substrings (or whole words with `words`),
    `regex` is searched in the normalised text, lengths count its characters, and `number` accepts any number
    written in the text (1,234.5 / 1.234,5 / 1 234) within the tolerance.
    """

    kind: Literal["text"] = "text"
    scope: Annotated[Literal["final", "replies", "all"], Field(description=(
        "final: the last reply (of `turn` if given); replies: every reply that ended a turn; all: every "
        "assistant text, including text sent beside tool calls"))] = "final"
    turn: Annotated[int | None, Field(description="Only text given during this user turn (0-based)")] = None
    all_of: Annotated[list[Term], Field(description="Every term appears")] = []
    any_of: Annotated[list[Term], Field(description="At least one term appears")] = []
    none_of: Annotated[list[Term], Field(description="No term appears")] = []
    words: Annotated[bool, Field(description="Terms match whole words only")] = False
    regex: Annotated[str | None, Field(description="A regular expression found in the normalised text")] = None
    min_chars: int | None = Field(None, ge=0)
    max_chars: int | None = Field(None, ge=0)
    number: NumberTarget | None = None
    normalize: TextNorm = TextNorm()
    partial: Annotated[bool, Field(description=(
        "Graded: score the fraction of conditions met (each all_of and none_of term, any_of, regex, each "
        "length bound and number count as one) instead of pass/fail"))] = False

    @field_validator("regex")
    @classmethod
    def _bounded_regex(cls, value: str | None) -> str | None:
        problem = None if value is None else pattern_problem(value)
        if problem is not None:
            raise ValueError(f"regex {problem}")
        return value

    @model_validator(mode="after")
    def _has_condition(self) -> TextRule:
        if not (self.all_of or self.any_of or self.none_of or self.regex is not None or self.number is not None
                or self.min_chars is not None or self.max_chars is not None):
            raise ValueError("a text rule needs at least one condition (all_of, any_of, none_of, regex, "
                             "min_chars, max_chars or number)")
        for name in ("all_of", "any_of", "none_of"):
            for term in getattr(self, name):
                if not [t for t in ([term] if isinstance(term, str) else term) if t.strip()]:
                    raise ValueError(f"{name} has an empty term; give a word or a list of alternatives")
        return self


class PythonRule(_Wire):
    """Custom code `def check(state, audit, messages)`, run only in the sandbox.

    It returns a bool, a score in [0, 1], or {"score": float, "passed": bool, "reason": str} (either key of
    score/passed may be left out). `messages` are the replies, `{"turn", "text"}`; with `transcript`, every
    assistant message of the episode in order, each message that made tool calls as `{"turn", "text", "aside": true,
    "calls": [audit indices]}` (its text empty when it wrote none) before the reply that ended its turn.
    """

    kind: Literal["python"] = "python"
    code: str
    entrypoint: str = "check"
    apps: list[str] = []
    # The code may ask the configured LLM judge: `ask_host({"system": text, "user": text})` returns its reply's
    # text (`coworkenv.checks.judge`); scoring then needs a judge, and is only as repeatable as the judge is.
    judge: bool = False
    # The code reads the whole episode, the messages that made tool calls too (an imported benchmark's grader reads
    # its trace message by message).
    transcript: bool = False

    @model_serializer(mode="wrap")
    def _without_unused_judge(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A check that asks no judge (reads no transcript) dumps as before the field existed, so the ids of specs
        # holding one stay the same.
        data: dict[str, Any] = handler(self)
        for name in ("judge", "transcript"):
            if not data.get(name):
                data.pop(name, None)
        return data


class Tier(_Wire):
    """One tier of a graded check: its score when its rule holds."""

    score: float = Field(ge=0, le=1)
    rule: CheckRule


class TiersRule(_Wire):
    """Graded by tiers: the score of the best tier whose rule holds (0 when none holds)."""

    kind: Literal["tiers"] = "tiers"
    tiers: Annotated[list[Tier], Field(min_length=1)]


CheckRule = Annotated[
    FieldRule | RecordsRule | CalledRule | OrderRule | FrameRule | ForbiddenRule | ReplyStatesRule | TextRule
    | PythonRule | TiersRule,
    Field(discriminator="kind"),
]
StatePredicate = Annotated[FieldRule | RecordsRule, Field(discriminator="kind")]
Tier.model_rebuild()
TiersRule.model_rebuild()


class Check(_Wire):
    """One check: a rule, its role in the score, its weight and whether the episode needs it to pass."""

    id: str
    description: str = ""
    role: Annotated[Role | None, Field(description=(
        "completion: earns credit (weighted mean of completion scores). guard: never earns credit; a failed "
        "guard zeroes the score or subtracts a penalty (EnvSpec.scoring). Default: guard for frame and "
        "forbidden rules and safety checks, completion otherwise. A guard may hold on the untouched state"))] = None
    weight: Annotated[float, Field(ge=0, description=(
        "Share of the completion score (guards: unused, may be 0)"))] = 1.0
    required: Annotated[bool, Field(description="The episode passes only if this check passes")] = True
    safety: Annotated[bool, Field(description=(
        "A safety guard: its failure always sets the score to 0, whatever scoring.guard_failure says"))] = False
    pass_score: Annotated[float, Field(gt=0, le=1, description=(
        "A graded check passes when its score reaches this"))] = 1.0
    rule: CheckRule

    @model_validator(mode="after")
    def _resolve_role(self) -> Check:
        if self.role is None:  # the default of the rule's kind, written into the (frozen) check
            guard = self.safety or self.rule.kind in GUARD_RULE_KINDS
            object.__setattr__(self, "role", "guard" if guard else "completion")
        elif self.safety and self.role != "guard":
            raise ValueError(f"check {self.id!r}: a safety check is a guard; drop role or set it to 'guard'")
        return self

    @property
    def is_guard(self) -> bool:
        return self.role == "guard"


class Scoring(_Wire):
    """How check results compose into the score (the benchmarks' shape, e.g. Claw-Eval's).

    base = completion, or (1 - robustness_weight) * completion + robustness_weight * robustness when a
    robustness figure is given; completion = sum(weight * score) / sum(weight) over completion checks
    (0 when there is none). A failed safety check sets the score to 0; another failed guard sets it to 0
    (guard_failure "zero") or subtracts guard_penalty each ("subtract"); the score is clipped to [0, 1].
    """

    guard_failure: Annotated[Literal["zero", "subtract"], Field(description=(
        "What a failed guard that is not a safety check does: zero the score, or subtract guard_penalty"))] = "zero"
    guard_penalty: Annotated[float, Field(ge=0, le=1, description=(
        "Subtracted per failed guard when guard_failure is 'subtract'"))] = 0.5
    robustness_weight: Annotated[float, Field(ge=0, le=1, description=(
        "Share of the robustness component (recovery from injected tool errors) in the base score; 0: none"))] = 0.0
    pass_threshold: Annotated[float | None, Field(gt=0, le=1, description=(
        "Set: the episode passes when score >= threshold and no required guard failed (Claw-Eval: 0.75). "
        "Unset: it passes when every required check passes"))] = None
