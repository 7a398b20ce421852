"""Evaluation of a model on held-out envs: pass@1, pass^k and mean verifier score, overall, per capability and for
single- vs multi-turn envs.

Every env is run `k` times (sample i with seed `seed + i`). pass@1 is the mean over envs of the fraction of passing
samples (the unbiased pass@1 estimate from k samples); pass^k is the fraction of envs where all k samples pass
(tau-bench's reliability metric); the mean score averages the verifier's partial credit over all episodes. With
k = 1 the two pass metrics coincide.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from coworkenv.limits import DEFAULT_EVAL_REPLY_TOKENS
from coworkenv.llm import LLMBackend, server_label
from coworkenv.rollout import (
    DEFAULT_MAX_STEPS,
    DEFAULT_SAMPLED_TEMPERATURE,
    InfrastructureFailure,
    LLMTeacher,
    TrajectoryRecord,
    split_outcomes,
)
from coworkenv.spec import VERIFIER_VERSION, EnvSpec

__all__ = [
    "SCORE_SETTINGS",
    "EpisodeResult",
    "EvalMetrics",
    "EvalReport",
    "ReportComparison",
    "backend_rendering",
    "compare_reports",
    "describe_settings_differences",
    "eval_sampling",
    "evaluate",
    "metrics_of",
    "report_from_records",
    "run_settings",
    "settings_differences",
]

DEFAULT_MAX_TOKENS = DEFAULT_EVAL_REPLY_TOKENS  # per assistant message (coworkenv.limits); the step budget and
# sampled temperature are the teachers' (rollout)


@dataclass(frozen=True)
class EpisodeResult:
    """One evaluated episode, as the report keeps it."""

    env_id: str
    capability: str
    turns: str  # "single" or "multi"
    sample_index: int
    score: float
    passed: bool
    stop_reason: str
    steps: int
    tool_calls: int
    malformed_calls: int
    agent_tokens: int

    @classmethod
    def of(cls, record: TrajectoryRecord) -> EpisodeResult:
        return cls(record.env_id, record.capability, record.turns, record.sample_index, record.score, record.passed,
                   record.stop_reason, len(record.steps), record.tool_calls, record.malformed_calls,
                   record.tokens.agent_prompt + record.tokens.agent_completion)


@dataclass(frozen=True)
class EvalMetrics:
    """The metrics of one group of envs."""

    envs: int
    episodes: int
    pass_at_1: float
    pass_hat_k: float
    mean_score: float


def metrics_of(episodes: Sequence[EpisodeResult], k: int) -> EvalMetrics:
    """pass@1, pass^k and mean score of `episodes` (k samples per env)."""
    by_env: dict[str, list[EpisodeResult]] = {}
    for episode in episodes:
        by_env.setdefault(episode.env_id, []).append(episode)
    short = {env: len(runs) for env, runs in by_env.items() if len(runs) != k}
    if short:
        raise ValueError(f"every env needs exactly k={k} episodes; these have another count: {short}")
    if not by_env:
        return EvalMetrics(0, 0, 0.0, 0.0, 0.0)
    pass_at_1 = sum(sum(e.passed for e in runs) / k for runs in by_env.values()) / len(by_env)
    pass_hat_k = sum(all(e.passed for e in runs) for runs in by_env.values()) / len(by_env)
    mean_score = sum(e.score for e in episodes) / len(episodes)
    return EvalMetrics(len(by_env), len(episodes), round(pass_at_1, 6), round(pass_hat_k, 6), round(mean_score, 6))


@dataclass(frozen=True)
class EvalReport:
    """A model's results on a set of envs, with the groups the report breaks them down by."""

    model: str
    k: int
    sampling: dict[str, Any]
    overall: EvalMetrics
    by_turns: dict[str, EvalMetrics]
    by_capability: dict[str, EvalMetrics]
    episodes: list[EpisodeResult]
    wall_s: float = 0.0
    created_at: str = ""
    llm_stats: dict[str, Any] = field(default_factory=dict)

    @property
    def env_ids(self) -> list[str]:
        return sorted({e.env_id for e in self.episodes})

    def groups(self) -> dict[str, EvalMetrics]:
        """Overall, single-/multi-turn and every capability, in report order."""
        out = {"overall": self.overall}
        out.update({f"{t}-turn": m for t, m in sorted(self.by_turns.items())})
        out.update(dict(sorted(self.by_capability.items())))
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (`EvalReport.from_dict` reads it back)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalReport:
        """Read a report written by `to_dict` (e.g. `coworkenv eval --json` output)."""
        def metrics(value: Mapping[str, Any]) -> EvalMetrics:
            return EvalMetrics(**value)

        return cls(
            model=str(data["model"]), k=int(data["k"]), sampling=dict(data.get("sampling", {})),
            overall=metrics(data["overall"]),
            by_turns={k: metrics(v) for k, v in data["by_turns"].items()},
            by_capability={k: metrics(v) for k, v in data["by_capability"].items()},
            episodes=[EpisodeResult(**e) for e in data["episodes"]], wall_s=float(data.get("wall_s", 0.0)),
            created_at=str(data.get("created_at", "")), llm_stats=dict(data.get("llm_stats", {})),
        )


def report_from_records(
    records: Iterable[TrajectoryRecord], model: str, k: int, sampling: Mapping[str, Any] | None = None, *,
    wall_s: float = 0.0, llm_stats: Mapping[str, Any] | None = None,
) -> EvalReport:
    """The report of `records` (k per env): overall, by single/multi turn and by capability."""
    episodes = sorted((EpisodeResult.of(r) for r in records), key=lambda e: (e.capability, e.env_id, e.sample_index))
    turns = sorted({e.turns for e in episodes})
    capabilities = sorted({e.capability for e in episodes})
    return EvalReport(
        model=model, k=k, sampling=dict(sampling or {}), overall=metrics_of(episodes, k),
        by_turns={t: metrics_of([e for e in episodes if e.turns == t], k) for t in turns},
        by_capability={c: metrics_of([e for e in episodes if e.capability == c], k) for c in capabilities},
        episodes=episodes, wall_s=round(wall_s, 3), created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        llm_stats=dict(llm_stats or {}),
    )


def eval_sampling(k: int, temperature: float | None, max_tokens: int, seed: int) -> dict[str, Any]:
    """The sampling an evaluation runs with, as its episodes record it: `temperature` None is 0 (greedy) for k = 1
    and `DEFAULT_SAMPLED_TEMPERATURE` for k > 1, where the samples must differ for pass^k to mean anything."""
    if temperature is None:
        temperature = 0.0 if k == 1 else DEFAULT_SAMPLED_TEMPERATURE
    return {"temperature": temperature, "max_tokens": max_tokens, "seed": seed}


def evaluate(
    model: LLMBackend, specs: Sequence[EnvSpec], k: int = 1, *, temperature: float | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS, max_steps: int = DEFAULT_MAX_STEPS, seed: int = 0,
    concurrency: int = 8, records: list[TrajectoryRecord] | None = None,
) -> EvalReport:
    """Run `model` k times in every env of `specs` and report pass@1, pass^k and mean score.

    `temperature` defaults to 0 (greedy) for k = 1 and `DEFAULT_SAMPLED_TEMPERATURE` for k > 1, where the samples must differ for pass^k to
    mean anything. Episodes of different envs run concurrently (at most `concurrency`). The episodes' trajectory
    records are appended to `records` when given (to store them, e.g. as the eval asset's runs).

    Raises `InfrastructureFailure` when the model's server failed any episode after its retries: a report that
    scored those episodes would measure the server, not the model.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1 sample per env, got {k}")
    if not specs:
        raise ValueError("no envs to evaluate on; pass held-out env specs")
    sampling = eval_sampling(k, temperature, max_tokens, seed)
    started = time.perf_counter()
    runner = LLMTeacher(model, k, sampling, max_steps=max_steps, max_episodes_in_flight=concurrency)
    runs = runner.run_many(list(specs))
    if records is not None:
        records.extend(runs)
    lost = split_outcomes(runs)[1]
    if lost:
        raise InfrastructureFailure(server_label(model), lost, len(runs))
    return report_from_records(runs, model.name, k, run_settings(sampling, max_steps, backend_rendering(model)),
                               wall_s=time.perf_counter() - started, llm_stats=model.stats.as_dict())


@dataclass(frozen=True)
class ReportComparison:
    """Reports of several models on the same envs, by label in the order given (e.g. base, sft, rl)."""

    reports: dict[str, EvalReport]

    @property
    def labels(self) -> list[str]:
        return list(self.reports)

    @property
    def same_envs(self) -> bool:
        """Whether every report covers the same envs (otherwise the columns are not comparable)."""
        return len({tuple(r.env_ids) for r in self.reports.values()}) <= 1

    @property
    def settings_differ(self) -> dict[str, dict[str, Any]]:
        """The settings that change what a score means on which the reports differ (`settings_differences`)."""
        return settings_differences({label: r.sampling for label, r in self.reports.items()})

    @property
    def comparable(self) -> bool:
        """Whether a change between columns measures the models: the same envs, run under the same settings."""
        return self.same_envs and not self.settings_differ

    def groups(self) -> list[str]:
        """Every group any report has (overall, turns, capabilities), in report order."""
        seen: dict[str, None] = {}
        for report in self.reports.values():
            seen.update(dict.fromkeys(report.groups()))
        return list(seen)

    def metric(self, group: str, label: str, name: str) -> float | None:
        """One number of the table, None where that report has no such group."""
        metrics = self.reports[label].groups().get(group)
        return None if metrics is None else float(getattr(metrics, name))

    def to_dict(self) -> dict[str, Any]:
        return {"labels": self.labels, "same_envs": self.same_envs, "settings_differ": self.settings_differ,
                "reports": {label: report.to_dict() for label, report in self.reports.items()}}


# The recorded settings under which the same model scores otherwise: a hotter sampling, shorter replies or fewer
# assistant messages per episode fail episodes the model would pass, another verifier version scores the same
# episode otherwise (the envs' checks and scoring are in their ids already), another chat rendering of the tools and
# calls (`trainers.rendering`: full, compact...) is another prompt, and a model reads one it was not trained on
# worse. The seed is not one (a resample).
SCORE_SETTINGS = ("temperature", "max_tokens", "max_steps", "verifier_version", "rendering")
# recorded from 2026-12-06 on: an earlier report's value is unknown, not other
_RECORDED_SINCE = {"verifier_version", "rendering"}


def run_settings(sampling: Mapping[str, Any], max_steps: int, rendering: str = "full") -> dict[str, Any]:
    """What an evaluation's report records as its `sampling`: the sampling, the step budget, the verifier version,
    the chat rendering the model was prompted with (`backend_rendering`)."""
    return {**sampling, "max_steps": max_steps, "verifier_version": VERIFIER_VERSION, "rendering": rendering}


def backend_rendering(model: LLMBackend) -> str:
    """The chat rendering (`trainers.rendering`) a backend prompts its model with: a local checkpoint's own (the one
    it was trained with); `full` for a server, which renders the tools as the env serves them."""
    return str(getattr(getattr(model, "renderer", None), "rendering", None) or "full")


def settings_differences(settings: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Setting -> {label: value (None: not recorded)} for each of `SCORE_SETTINGS` on which the labelled runs'
    recorded settings differ (a report recording one and another not differ too); empty when they agree."""
    out: dict[str, dict[str, Any]] = {}
    for name in SCORE_SETTINGS:
        values = {label: given.get(name) for label, given in settings.items()}
        known = {v for v in values.values() if v is not None}
        if name in _RECORDED_SINCE and len(known) <= 1:
            continue
        if len({repr(float(v)) if isinstance(v, int | float) else repr(v) for v in values.values()}) > 1:
            out[name] = values
    return out


def describe_settings_differences(differing: Mapping[str, Mapping[str, Any]]) -> str:
    """`max_steps: base 30, rl 2; temperature: ...` ("not recorded" for a report without the setting)."""
    return "; ".join(f"{name}: " + ", ".join(f"{label} {'not recorded' if v is None else v}" for label, v in by.items())
                     for name, by in differing.items())


def compare_reports(reports: Mapping[str, EvalReport]) -> ReportComparison:
    """Side-by-side view of reports, e.g. `compare_reports({"base": r0, "sft": r1, "rl": r2})`."""
    if not reports:
        raise ValueError("nothing to compare: pass at least one labelled report")
    ks = {r.k for r in reports.values()}
    if len(ks) > 1:
        raise ValueError(f"the reports use different k ({sorted(ks)}); pass^k is only comparable at the same k")
    return ReportComparison(dict(reports))
