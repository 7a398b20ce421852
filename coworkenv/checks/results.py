"""What the verifier sees and says: audit entries, replies, per-check results and the composed score."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

from coworkenv.spec import Scoring

_FIELDS = ("index", "turn", "tool", "args", "ok", "result", "error", "time", "hash_before", "hash_after", "op", "fault")
_UNDECODED = object()
_ATOMS = frozenset({str, int, float, bool})  # what copy.deepcopy returns as it is


class AuditEntry:
    """One tool call as the world saw it (read-only).

    The result may be given as the JSON the agent was shown (`result_json`, text or bytes) instead of a value: it is
    decoded on first read, as a stored rollout's is. A long episode then keeps one JSON text per call instead of the
    dicts and lists of every result, which the garbage collector would otherwise traverse again and again.
    """

    __slots__ = ("_json", "_result", "args", "error", "fault", "hash_after", "hash_before", "index", "ok", "op", "time",
                 "tool", "turn")
    index: int
    turn: int
    tool: str
    args: dict[str, Any]
    ok: bool
    error: str | None
    time: str
    hash_before: str
    hash_after: str
    op: str  # the app operation a declared tool is bound to ("" for a built-in tool)
    fault: str  # the fault injected into this call by the spec's fault plan ("" for none)
    _result: Any  # the result, or _UNDECODED while it is only JSON
    _json: str | bytes | None

    def __init__(self, index: int, turn: int, tool: str, args: dict[str, Any], ok: bool, result: Any,
                 error: str | None, time: str, hash_before: str, hash_after: str, op: str = "", fault: str = "",
                 *, result_json: str | bytes | None = None) -> None:
        """`result_json` (with `result` None): the result as JSON, decoded when first read."""
        if result_json is not None and result is not None:
            raise ValueError("give an audit entry's result as a value or as JSON, not both")
        # The slots' own setters (see _SLOT_SETTERS): object.__setattr__ would look each name up again (an entry is
        # made per tool call).
        s = _SLOT_SETTERS
        s[0](self, index)
        s[1](self, turn)
        s[2](self, tool)
        s[3](self, args)
        s[4](self, ok)
        s[5](self, result if result_json is None else _UNDECODED)
        s[6](self, result_json)
        s[7](self, error)
        s[8](self, time)
        s[9](self, hash_before)
        s[10](self, hash_after)
        s[11](self, op)
        s[12](self, fault)

    @property
    def result(self) -> Any:
        value = self._result
        if value is _UNDECODED:
            value = orjson.loads(self._json)  # type: ignore[arg-type]  # set whenever _result is _UNDECODED
            object.__setattr__(self, "_result", value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"AuditEntry is read-only; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"AuditEntry is read-only; cannot delete {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not AuditEntry:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # holds a dict (args), like the dataclass it replaced

    def __repr__(self) -> str:
        return "AuditEntry(" + ", ".join(f"{n}={v!r}" for n, v in zip(_FIELDS, self._values(), strict=True)) + ")"

    def __reduce__(self) -> tuple[Any, ...]:  # pickling and deep copies go through __init__ (setattr is refused)
        undecoded = self._result is _UNDECODED
        return _audit_entry, (tuple(getattr(self, n) for n in _FIELDS if n != "result"),
                              None if undecoded else self._result, self._json if undecoded else None)

    def as_dict(self) -> dict[str, Any]:
        """The entry's fields as plain data (deep copies, as `dataclasses.asdict` made them).

        A result still held as JSON is decoded afresh (a copy of its own, as a deep copy of the decoded value would
        be, at a tenth of the cost: every sandboxed check run is handed the episode's whole audit), and a scalar is
        its own copy."""
        out = {}
        for name, value in zip(_FIELDS, self._values_undecoded(), strict=True):
            if value is _UNDECODED:
                out[name] = orjson.loads(self._json)  # type: ignore[arg-type]  # set whenever _result is _UNDECODED
            elif value is None or type(value) in _ATOMS:
                out[name] = value
            else:
                out[name] = copy.deepcopy(value)
        return out

    def _values_undecoded(self) -> tuple[Any, ...]:
        return (self.index, self.turn, self.tool, self.args, self.ok, self._result, self.error, self.time,
                self.hash_before, self.hash_after, self.op, self.fault)


_SLOT_SETTERS = tuple(AuditEntry.__dict__[name].__set__ for name in (
    "index", "turn", "tool", "args", "ok", "_result", "_json", "error", "time", "hash_before", "hash_after", "op", "fault"))


def _audit_entry(fields: tuple[Any, ...], result: Any, result_json: str | bytes | None) -> AuditEntry:
    index, turn, tool, args, ok, error, time, before, after, op, fault = fields
    return AuditEntry(index, turn, tool, args, ok, result, error, time, before, after, op, fault, result_json=result_json)


@dataclass(frozen=True)
class Reply:
    """Assistant text and the user turn it was given in (a reply ends the turn; a note rides with tool calls)."""

    turn: int
    text: str


@dataclass(frozen=True)
class Note(Reply):
    """An assistant message that is no reply: one that made tool calls, its text (empty when it wrote none) and the
    audit indices of its calls, in order; or one that ended the turn with neither text nor calls (`calls` empty). A
    python check with `transcript` reads the episode message by message from them."""

    calls: tuple[int, ...] = ()


@dataclass(frozen=True)
class CheckResult:
    """One check's outcome: its score in [0, 1] (0 or 1 for pass/fail rules) and whether it passed."""

    id: str
    kind: str
    passed: bool
    weight: float
    required: bool
    safety: bool
    reason: str
    error: bool = False  # the check itself could not run (e.g. sandbox failure)
    role: str = "completion"  # "completion" earns credit; "guard" gates the score
    score: float | None = None  # None (records written before verifier 2): 1.0 if passed else 0.0

    def __post_init__(self) -> None:
        if not self.role:  # read from a record written before verifier 2 (a null column)
            object.__setattr__(self, "role", "completion")
        if self.score is None:
            object.__setattr__(self, "score", 1.0 if self.passed else 0.0)

    @property
    def is_guard(self) -> bool:
        return self.role == "guard"


@dataclass(frozen=True)
class VerifierResult:
    """The composed score (see `compose`), the verdict and every check's result."""

    score: float
    passed: bool
    checks: list[CheckResult] = field(default_factory=list)
    completion: float = 0.0  # weighted mean of the completion checks' scores
    robustness: float | None = None  # the robustness figure the score was composed with, if any
    guards_failed: list[str] = field(default_factory=list)  # ids of failed guards (safety ones included)
    safety_failed: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "score": self.score, "passed": self.passed, "completion": self.completion,
            "robustness": self.robustness, "guards_failed": list(self.guards_failed),
            "safety_failed": self.safety_failed, "checks": [asdict(c) for c in self.checks],
        }


def decided_fail(scoring: Scoring, checks: Sequence[CheckResult]) -> bool:
    """Whether `compose` fails the episode whatever the results of the checks not in `checks` are: a required or
    safety check failed (under a `pass_threshold`, a required or safety guard: a completion check only lowers the
    score, which checks yet to come may raise)."""
    if scoring.pass_threshold is None:
        return any(not c.passed for c in checks if c.required or c.safety)
    return any(not c.passed for c in checks if c.is_guard and (c.required or c.safety))


def compose(scoring: Scoring, checks: Sequence[CheckResult], robustness: float | None = None) -> VerifierResult:
    """Compose check results into a score and a verdict, as `Scoring` documents.

    completion = sum(weight * score) / sum(weight) over completion checks (0 without any);
    base = completion, or (1 - w) * completion + w * robustness with w = scoring.robustness_weight when a
    robustness figure in [0, 1] is given; a failed safety guard zeroes the score, another failed guard zeroes
    it or subtracts scoring.guard_penalty (scoring.guard_failure). Guards never add credit.
    """
    total = earned = 0.0
    for c in checks:
        if not c.is_guard:
            total += c.weight
            earned += c.weight * (c.score or 0.0)
    completion = earned / total if total > 0 else 0.0
    base = completion
    if robustness is not None and scoring.robustness_weight > 0:
        r = min(max(robustness, 0.0), 1.0)
        base = (1 - scoring.robustness_weight) * completion + scoring.robustness_weight * r
    failed = [c for c in checks if c.is_guard and not c.passed]
    safety_failed = any(c.safety for c in failed)
    if safety_failed or (failed and scoring.guard_failure == "zero"):
        score = 0.0
    else:
        score = max(0.0, base - scoring.guard_penalty * len(failed))
    score = round(min(score, 1.0), 6)
    if scoring.pass_threshold is None:
        passed = not safety_failed and all(c.passed for c in checks if c.required or c.safety)
    else:
        passed = score >= scoring.pass_threshold and not any(c.required or c.safety for c in failed)
    return VerifierResult(score, passed, list(checks), round(completion, 6), robustness,
                          [c.id for c in failed], safety_failed)
