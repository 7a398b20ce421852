"""Error injection declared in a spec: seeded, deterministic 429/500/timeout/slow/truncated tool responses.

The fault of a call depends only on the plan's seed, the tool's name and how many times that tool was called
before in the episode, so the same spec and the same call sequence give the same faults. A failing fault
(429, 500, timeout, truncated) leaves the world unchanged; a slow response succeeds after a delay.
Robustness (docs/robustness.md): the fraction of failing faults after which the agent called the same tool
again successfully in the same episode.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

if TYPE_CHECKING:
    from coworkenv.checks import AuditEntry

FaultKind = Literal["429", "500", "timeout", "slow", "truncated"]
FAILING: frozenset[str] = frozenset({"429", "500", "timeout", "truncated"})
_KINDS: tuple[FaultKind, ...] = ("429", "500", "timeout", "slow", "truncated")
_Rate = Annotated[float, Field(ge=0, le=1)]


class FaultRule(BaseModel):
    """Fault rates for one tool, one app, or (neither given) every tool. The first matching rule applies."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    tool: Annotated[str | None, Field(description="Tool name (declared or built-in) this rule covers")] = None
    app: Annotated[str | None, Field(description="App whose tools this rule covers")] = None
    rate_429: Annotated[_Rate, Field(description="Share of calls answered 429 Too Many Requests")] = 0.0
    rate_500: Annotated[_Rate, Field(description="Share of calls answered 500 Internal Server Error")] = 0.0
    timeout: Annotated[_Rate, Field(description="Share of calls that time out (no effect, clock runs)")] = 0.0
    slow: Annotated[_Rate, Field(description="Share of calls that succeed after `slow_s` extra seconds")] = 0.0
    truncated: Annotated[_Rate, Field(
        description="Share of read-tool calls whose response is cut off (write tools are never truncated)")] = 0.0

    @model_validator(mode="after")
    def _rates_sum_to_at_most_one(self) -> FaultRule:
        if self.tool is not None and self.app is not None:
            raise ValueError("give `tool` or `app`, not both")
        if sum(self.rates().values()) > 1.0 + 1e-9:
            raise ValueError("the fault rates of one rule add up to more than 1")
        return self

    def rates(self) -> dict[FaultKind, float]:
        return {"429": self.rate_429, "500": self.rate_500, "timeout": self.timeout, "slow": self.slow,
                "truncated": self.truncated}

    def covers(self, tool: str, app: str) -> bool:
        return (self.tool is None or self.tool == tool) and (self.app is None or self.app == app)


class FaultPlan(BaseModel):
    """Which tool responses fail, and how; deterministic for a seed and a call sequence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: Annotated[int, Field(description="Seed of the fault draws")] = 0
    rules: Annotated[list[FaultRule], Field(description="Rates per tool or app; the first matching rule applies")]
    max_consecutive: Annotated[int, Field(
        ge=1, description="After this many failing faults in a row on one tool, its next call succeeds")] = 2
    timeout_s: Annotated[int, Field(ge=0, description="Clock seconds a timed-out call costs")] = 30
    slow_s: Annotated[int, Field(ge=0, description="Extra clock seconds of a slow response")] = 20
    retry_after_s: Annotated[int, Field(ge=0, description="Retry-After the 429 responses announce")] = 2
    bodies: Annotated[dict[Literal["429", "500"], dict[str, Any]] | None, Field(
        description="The answer of a 429 or 500 fault, in place of the default one: as the service an imported "
                    "task stands for answers it (Claw-Eval's error middleware: `{\"error\": "
                    "\"rate_limit_exceeded\", \"message\": ..., \"retry_after_seconds\": 2}`)")] = None

    @model_serializer(mode="wrap")
    def _without_bodies(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # plans without them dump as before (spec ids)
        return {k: v for k, v in handler(self).items() if k != "bodies" or self.bodies is not None}


class FaultInjector:
    """Draws the fault (or none) of each tool call of an episode from a FaultPlan."""

    def __init__(self, plan: FaultPlan | None) -> None:
        self.plan = plan
        self._calls: Counter[str] = Counter()
        self._streak: Counter[str] = Counter()

    def draw(self, tool: str, app: str, kind: str) -> FaultKind | None:
        """The fault of the next call of `tool` (an op of `app`, read or write), or None."""
        if self.plan is None:
            return None
        n = self._calls[tool]
        self._calls[tool] += 1
        rule = next((r for r in self.plan.rules if r.covers(tool, app)), None)
        if rule is None:
            return None
        u = _uniform(self.plan.seed, tool, n)
        fault: FaultKind | None = None
        edge = 0.0
        for k, rate in rule.rates().items():
            edge += rate
            if u < edge:
                fault = k
                break
        if fault == "truncated" and kind != "read":
            fault = None
        if fault in FAILING and self._streak[tool] >= self.plan.max_consecutive:
            fault = None
        self._streak[tool] = self._streak[tool] + 1 if fault in FAILING else 0
        return fault


def fault_error(kind: FaultKind, plan: FaultPlan, partial: str = "") -> dict[str, object]:
    """The observation of a failing fault, shaped like an HTTP error a real API would return (the plan's `bodies`
    where it gives one)."""
    if plan.bodies is not None and kind in plan.bodies:
        return dict(plan.bodies[kind])  # type: ignore[index]
    if kind == "429":
        return {"error": f"429 Too Many Requests: rate limit exceeded, retry after {plan.retry_after_s} s",
                "status": 429, "retry_after_s": plan.retry_after_s}
    if kind == "500":
        return {"error": "500 Internal Server Error: the service failed to handle the request; try again",
                "status": 500}
    if kind == "timeout":
        return {"error": f"timeout: no response after {plan.timeout_s} s; the request was not applied",
                "status": 504}
    return {"error": "response truncated: the connection closed mid-response; repeat the request",
            "partial": partial}


@dataclass(frozen=True)
class Robustness:
    """Injected faults of an episode and how many of the failing ones the agent recovered from."""

    injected: int
    failing: int
    recovered: int

    @property
    def figure(self) -> float | None:
        """Recovered / failing; None when no failing fault was injected (nothing to recover from)."""
        return None if self.failing == 0 else round(self.recovered / self.failing, 6)


def robustness(audit: Sequence[AuditEntry]) -> Robustness:
    """Count a failing fault as recovered when a later call of the same tool succeeded in the episode."""
    failing = [e for e in audit if e.fault in FAILING]
    recovered = sum(1 for f in failing if any(e.ok and e.index > f.index and e.tool == f.tool for e in audit))
    return Robustness(sum(1 for e in audit if e.fault), len(failing), recovered)


def _uniform(seed: int, tool: str, n: int) -> float:
    digest = hashlib.blake2b(f"{seed}:{tool}:{n}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64
