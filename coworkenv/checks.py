"""The verifier: declarative predicates over final state, audit log and the agent's messages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from coworkenv.spec import (
    CalledRule,
    CallMatcher,
    Check,
    EnvSpec,
    FieldRef,
    FieldRule,
    ForbiddenRule,
    FrameRule,
    Op,
    OrderRule,
    PythonRule,
    RecordsRule,
    ReplyStatesRule,
    Selector,
)
from coworkenv.world import Change, World

MISSING = object()  # a field path that does not resolve


@dataclass(frozen=True)
class AuditEntry:
    """One tool call as the world saw it."""

    index: int
    turn: int
    tool: str
    args: dict[str, Any]
    ok: bool
    result: Any
    error: str | None
    time: str
    hash_before: str
    hash_after: str
    op: str = ""  # the app operation a declared tool is bound to ("" for a built-in tool)
    fault: str = ""  # the fault injected into this call by the spec's fault plan ("" for none)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Reply:
    """An assistant message with text, and the user turn it answered."""

    turn: int
    text: str


@dataclass(frozen=True)
class CheckResult:
    id: str
    kind: str
    passed: bool
    weight: float
    required: bool
    safety: bool
    reason: str
    error: bool = False  # the check itself could not run (e.g. sandbox failure)


@dataclass(frozen=True)
class VerifierResult:
    """Score = weighted fraction of checks passed (0 if a safety check failed); pass = all required pass."""

    score: float
    passed: bool
    checks: list[CheckResult] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"score": self.score, "passed": self.passed, "checks": [asdict(c) for c in self.checks]}


# -- primitives -----------------------------------------------------------------------------------
def field_value(record: Any, path: str) -> Any:
    """Value at a dotted field path of a record, or MISSING."""
    head, _, rest = path.partition(".")
    value = getattr(record, head, MISSING)
    for part in rest.split(".") if rest else ():
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return MISSING
    return value


def resolve(world: World, ref: FieldRef) -> Any:
    record = world.table(ref.app, ref.table).get(ref.id)
    return MISSING if record is None else field_value(record, ref.field)


def compare(actual: Any, op: Op, expected: Any) -> bool:
    """Apply a comparison operator; type mismatches compare as false, never raise."""
    if actual is MISSING:
        return op in ("not_equals", "not_contains")
    try:
        if op == "equals":
            return bool(actual == expected)
        if op == "not_equals":
            return bool(actual != expected)
        if op in ("contains", "not_contains"):
            found = _contains(actual, expected)
            return found if op == "contains" else not found
        if op == "matches":
            return re.search(str(expected), str(actual)) is not None
        if op == "in":
            return actual in expected
        if op == "gte":
            return bool(actual >= expected)
        if op == "lte":
            return bool(actual <= expected)
        if op == "gt":
            return bool(actual > expected)
        if op == "lt":
            return bool(actual < expected)
    except TypeError:
        return False
    raise ValueError(f"unknown operator {op!r}")


def _contains(actual: Any, expected: Any) -> bool:
    wanted = expected if isinstance(expected, list) else [expected]
    if isinstance(actual, str):
        return all(str(w).lower() in actual.lower() for w in wanted)
    if isinstance(actual, list | tuple | set | dict):
        return all(w in actual for w in wanted)
    return False


def arg_matches(actual: Any, expected: Any) -> bool:
    """Expected lists must all be present, dicts match as subsets, strings match case-insensitively."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(arg_matches(actual.get(k), v) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and all(any(arg_matches(a, e) for a in actual) for e in expected)
    if isinstance(expected, str) and isinstance(actual, str):
        return actual.strip().lower() == expected.strip().lower()
    return bool(actual == expected)


def call_matches(matcher: CallMatcher, tool: str, args: dict[str, Any]) -> bool:
    return tool == matcher.tool and all(arg_matches(args.get(k), v) for k, v in matcher.args.items())


def record_matches(record: Any, rule: RecordsRule) -> bool:
    """Whether one record (None: absent) meets every condition of a records rule."""
    return record is not None and all(compare(field_value(record, c.field), c.op, c.value) for c in rule.where)


def count_records(world: World, rule: RecordsRule) -> int:
    """Records of the rule's table meeting its conditions, in O(records written since the journal started)."""
    table = world.table(rule.app, rule.table)
    touched = world.touched(rule.app, rule.table)

    def delta() -> int:  # matches gained minus lost by the records written since the journal started
        return sum(record_matches(table.get(i), rule) - record_matches(old, rule) for i, old in touched.items())

    # The count at the journal's start is scanned once per journal; afterwards only written records are read.
    baseline = world.journal_memo(
        ("records", id(rule)), lambda: sum(record_matches(r, rule) for r in table) - delta(), owner=rule
    )
    return baseline + delta()


def holds(world: World, rule: FieldRule | RecordsRule) -> bool:
    """Whether a state predicate holds (`state_holds` also explains a failure)."""
    if isinstance(rule, FieldRule):
        return compare(resolve(world, rule.target), rule.op, rule.value)
    return compare(count_records(world, rule), rule.count_op, rule.count)


def state_holds(world: World, rule: FieldRule | RecordsRule) -> tuple[bool, str]:
    """Evaluate a state predicate; the reason explains a failure."""
    if isinstance(rule, FieldRule):
        actual = resolve(world, rule.target)
        ok = compare(actual, rule.op, rule.value)
        shown = "missing" if actual is MISSING else repr(actual)
        t = rule.target
        return ok, f"{t.app}.{t.table}[{t.id}].{t.field} is {shown}, expected {rule.op} {rule.value!r}"
    n = count_records(world, rule)
    ok = compare(n, rule.count_op, rule.count)
    conds = " and ".join(f"{c.field} {c.op} {c.value!r}" for c in rule.where) or "any"
    return ok, f"{n} record(s) in {rule.app}.{rule.table} where {conds}; expected {rule.count_op} {rule.count}"


def selector_allows(sel: Selector, change: Change) -> bool:
    if sel.app != change.app or (sel.table is not None and sel.table != change.table):
        return False
    if sel.id is not None and sel.id != change.id:
        return False
    if sel.fields is None:
        return True
    return change.kind == "changed" and set(change.fields) <= set(sel.fields)


def render_value(value: Any, fmt: str) -> list[str]:
    """The strings a reply must contain to state `value` (every item of a list)."""
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        text = str(item)
        if fmt == "date":
            text = text[:10]
        elif fmt == "time" and "T" in text:
            text = text.split("T", 1)[1][:5]
        out.append(text)
    return out


# -- the verifier -------------------------------------------------------------------------------------
class Verifier:
    """Scores one episode of a spec from the world, its audit log and the agent's replies."""

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec

    def score(self, world: World, audit: Sequence[AuditEntry], replies: Sequence[Reply]) -> VerifierResult:
        results = [self._check(c, world, audit, replies) for c in self.spec.checks]
        total = sum(r.weight for r in results)
        earned = sum(r.weight for r in results if r.passed)
        safety_failed = any(r.safety and not r.passed for r in results)
        score = 0.0 if safety_failed or total == 0 else round(earned / total, 6)
        passed = not safety_failed and all(r.passed for r in results if r.required or r.safety)
        return VerifierResult(score, passed, results)

    def _check(self, check: Check, world: World, audit: Sequence[AuditEntry], replies: Sequence[Reply]) -> CheckResult:
        ok, reason, error = self._evaluate(check.rule, world, audit, replies)
        return CheckResult(check.id, check.rule.kind, ok, check.weight, check.required, check.safety,
                           "" if ok else reason, error)

    def _evaluate(
        self, rule: Any, world: World, audit: Sequence[AuditEntry], replies: Sequence[Reply]
    ) -> tuple[bool, str, bool]:
        if isinstance(rule, FieldRule | RecordsRule):
            if holds(world, rule):  # the reason is only worth building for a failure
                return True, "", False
            return False, state_holds(world, rule)[1], False
        if isinstance(rule, CalledRule):
            n = sum(1 for e in audit if e.ok and call_matches(rule.call, e.tool, e.args))
            return n >= rule.min_times, f"{n} successful {rule.call.tool} call(s) matching {rule.call.args}", False
        if isinstance(rule, ForbiddenRule):
            bad = [e.index for e in audit if e.ok and call_matches(rule.call, e.tool, e.args)]
            return not bad, f"forbidden {rule.call.tool} call(s) at step(s) {bad}", False
        if isinstance(rule, OrderRule):
            return self._order(rule, audit)
        if isinstance(rule, FrameRule):
            extra = [c.path for c in world.changes() if not any(selector_allows(s, c) for s in rule.allow)]
            return not extra, f"unexpected changes: {', '.join(extra[:5])}", False
        if isinstance(rule, ReplyStatesRule):
            return self._reply(rule, world, replies)
        if isinstance(rule, PythonRule):
            return self._python(rule, world, audit, replies)
        raise TypeError(f"unknown check rule {type(rule).__name__}")

    @staticmethod
    def _order(rule: OrderRule, audit: Sequence[AuditEntry]) -> tuple[bool, str, bool]:
        first = next((e.index for e in audit if e.ok and call_matches(rule.first, e.tool, e.args)), None)
        then = next((e.index for e in audit if e.ok and call_matches(rule.then, e.tool, e.args)), None)
        if first is None or then is None:
            missing = rule.first.tool if first is None else rule.then.tool
            return False, f"no successful {missing} call matching the check", False
        return first < then, f"{rule.then.tool} (step {then}) came before {rule.first.tool} (step {first})", False

    @staticmethod
    def _reply(rule: ReplyStatesRule, world: World, replies: Sequence[Reply]) -> tuple[bool, str, bool]:
        value = resolve(world, rule.source)
        if value is MISSING:
            s = rule.source
            return False, f"{s.app}.{s.table}[{s.id}].{s.field} does not exist in the final state", False
        text = " ".join(r.text for r in replies if rule.turn is None or r.turn == rule.turn).lower()
        wanted = render_value(value, rule.format)
        missing = [w for w in wanted if w.lower() not in text]
        where = "the replies" if rule.turn is None else f"the reply to turn {rule.turn}"
        return not missing, f"{where} do not state {', '.join(missing)}", False

    @staticmethod
    def _python(
        rule: PythonRule, world: World, audit: Sequence[AuditEntry], replies: Sequence[Reply]
    ) -> tuple[bool, str, bool]:
        from coworkenv.sandbox import run_sandboxed  # the sandbox spawns processes: load it only when needed

        state = world.to_wire()
        apps = rule.apps or list(state["apps"])
        payload = {
            "state": {"clock": state["clock"], "apps": {a: state["apps"][a] for a in apps}},
            "audit": [e.as_dict() for e in audit],
            "messages": [{"turn": r.turn, "text": r.text} for r in replies],
        }
        outcome = run_sandboxed(rule.code, rule.entrypoint, payload)
        if not outcome.ok:
            return False, f"check error ({outcome.error_kind}): {outcome.error}", True
        value = outcome.value
        if isinstance(value, dict):
            return bool(value.get("passed")), str(value.get("reason", "python check failed")), False
        if isinstance(value, bool):
            return value, "python check returned false", False
        return False, f"python check returned {type(value).__name__}, expected bool or {{passed, reason}}", True
