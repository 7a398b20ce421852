"""Confidence intervals for evaluation results and training curves: paired bootstrap over envs, t-intervals over seeds.

Two models evaluated on the same held-out envs are compared env by env: a bootstrap resample draws envs with
replacement and takes the difference of the two models' means on the same draw (a paired bootstrap), so the
interval reflects which envs happen to be in the held-out set. A difference whose 95% interval contains 0 is
marked not significant. Curves over training steps (the RL reward) are summarised per seed by a least-squares
slope; the seeds' slopes give a Student-t interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from trainers.evaluate import EpisodeResult, EvalReport

__all__ = [
    "Estimate",
    "bootstrap_mean",
    "env_means",
    "ols_slope",
    "paired_bootstrap_difference",
    "report_differences",
    "t_interval",
    "welch_difference",
]

DEFAULT_RESAMPLES = 2000
METRICS = {"pass_at_1": lambda e: float(e.passed), "mean_score": lambda e: float(e.score)}


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a two-sided interval; `significant` when the interval excludes 0."""

    value: float
    low: float
    high: float
    n: int

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "significant": self.significant}

    def format(self, digits: int = 3) -> str:
        mark = "" if self.significant else " (n.s.)"
        return f"{self.value:+.{digits}f} [{self.low:+.{digits}f}, {self.high:+.{digits}f}]{mark}"


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"confidence level must lie in (0, 1), got {level}")


def bootstrap_mean(values: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, level: float = 0.95,
                   seed: int = 0) -> Estimate:
    """Mean of `values` with a percentile bootstrap interval."""
    _check_level(level)
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("cannot bootstrap the mean of no values")
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    return Estimate(float(data.mean()), float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail)),
                    int(data.size))


def paired_bootstrap_difference(a: Mapping[str, float], b: Mapping[str, float], *,
                                resamples: int = DEFAULT_RESAMPLES, level: float = 0.95, seed: int = 0) -> Estimate:
    """mean(b) - mean(a) over the keys (envs) both have, with a paired percentile bootstrap interval."""
    keys = sorted(set(a) & set(b))
    if not keys:
        raise ValueError("the two results share no env; a paired difference needs the same held-out envs")
    return bootstrap_mean([b[k] - a[k] for k in keys], resamples=resamples, level=level, seed=seed)


def env_means(episodes: Sequence[EpisodeResult], metric: str) -> dict[str, float]:
    """Per env, the mean of `metric` (`pass_at_1` or `mean_score`) over its k samples."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; use one of {', '.join(METRICS)}")
    value = METRICS[metric]
    by_env: dict[str, list[float]] = {}
    for episode in episodes:
        by_env.setdefault(episode.env_id, []).append(value(episode))
    return {env: sum(v) / len(v) for env, v in by_env.items()}


def _groups(report: EvalReport) -> dict[str, list[EpisodeResult]]:
    groups: dict[str, list[EpisodeResult]] = {"overall": list(report.episodes)}
    for episode in report.episodes:
        groups.setdefault(f"{episode.turns}-turn", []).append(episode)
    for episode in report.episodes:
        groups.setdefault(episode.capability, []).append(episode)
    return groups


def report_differences(reports: Mapping[str, EvalReport], *, metrics: Sequence[str] = tuple(METRICS),
                       resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> list[dict[str, Any]]:
    """For every group (overall, single-/multi-turn, capability) and metric: each model's mean with a bootstrap
    interval, and every later model's paired difference to every earlier one (e.g. sft-base, rl-base, rl-sft)."""
    labels = list(reports)
    grouped = {label: _groups(report) for label, report in reports.items()}
    group_names = list(dict.fromkeys(g for label in labels for g in grouped[label]))
    rows = []
    for group in group_names:
        for metric in metrics:
            per_env = {label: env_means(grouped[label].get(group, []), metric) for label in labels}
            row: dict[str, Any] = {"group": group, "metric": metric, "envs": len(per_env[labels[0]])}
            for label in labels:
                if per_env[label]:
                    row[label] = bootstrap_mean(list(per_env[label].values()), resamples=resamples, seed=seed).to_dict()
            for i, first in enumerate(labels):
                for second in labels[i + 1:]:
                    if set(per_env[first]) & set(per_env[second]):
                        row[f"{second}-{first}"] = paired_bootstrap_difference(
                            per_env[first], per_env[second], resamples=resamples, seed=seed).to_dict()
            rows.append(row)
    return rows


def ols_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ys on xs."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"a slope needs at least 2 paired points, got {len(xs)} x and {len(ys)} y")
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    spread = ((x - x.mean()) ** 2).sum()
    if spread == 0:
        raise ValueError("all x values are equal; the slope is undefined")
    return float(((x - x.mean()) * (y - y.mean())).sum() / spread)


def t_interval(values: Sequence[float], level: float = 0.95) -> Estimate:
    """Mean of `values` (e.g. one slope per seed) with a Student-t interval; needs at least 2 values."""
    _check_level(level)
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        raise ValueError(f"a t-interval needs at least 2 values (seeds), got {data.size}")
    mean = float(data.mean())
    half = float(stats.t.ppf((1 + level) / 2, data.size - 1) * data.std(ddof=1) / math.sqrt(data.size))
    return Estimate(mean, mean - half, mean + half, int(data.size))


def welch_difference(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Estimate:
    """mean(b) - mean(a) of two independent samples (e.g. two variants' per-seed slopes) with Welch's t-interval
    (scipy's `ttest_ind(equal_var=False)`). Needs at least 2 values on each side; when neither sample varies the
    difference is exact (a zero-width interval)."""
    _check_level(level)
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size < 2 or y.size < 2:
        raise ValueError(f"a Welch interval needs at least 2 values per side, got {x.size} and {y.size}")
    diff = float(y.mean() - x.mean())
    if x.var() == 0 and y.var() == 0:
        return Estimate(diff, diff, diff, int(x.size + y.size))
    interval = stats.ttest_ind(y, x, equal_var=False).confidence_interval(level)
    return Estimate(diff, float(interval.low), float(interval.high), int(x.size + y.size))
