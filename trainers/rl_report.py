"""RL run reports: the reward curve of one run, and the comparison table of reward/credit variants.

Numbers are what the runs logged per optimisation step (TRL's `reward`, `reward_std`, `frac_reward_zero_std`, and
the env's verifier score and pass rate of the step's episodes); nothing is smoothed or extrapolated. Whether the
reward rises is the least-squares slope of the per-step reward: for one run with the 95% interval of the regression,
over seeds with a Student-t interval of the seeds' slopes (`trainers.eval_ci`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scipy import stats

from coworkenv.atomic import atomic_write_bytes
from trainers.eval_ci import Estimate, ols_slope, t_interval, welch_difference

__all__ = ["REFERENCE_VARIANT", "comparison_markdown", "reward_slope", "seed_slopes", "slope_summary", "summarize_run",
           "variant_table", "write_comparison_plot", "write_reward_curve", "write_variant_plot",
           "zero_variance_fraction"]

REFERENCE_VARIANT = ("partial", "trajectory")


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display on CI, Dagster workers or GPU nodes
    from matplotlib import pyplot as plt

    return plt


def _integer_steps(axes: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # steps are whole numbers


def _per_step(*panels: Any) -> None:
    """Panels whose x axis is the optimisation step."""
    for axes in panels:
        axes.set_xlabel("optimisation step")
        _integer_steps(axes)
        axes.grid(alpha=0.3)


def _finish(figure: Any, label: str, path: Path) -> None:
    figure.suptitle(label, fontsize=9)
    figure.tight_layout()
    _save(figure, path)


def _save(figure: Any, path: Path) -> None:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    atomic_write_bytes(path, buffer.getvalue())


def write_reward_curve(path: Path, entries: Sequence[Mapping[str, float]], reward: str, title: str) -> None:
    """Plot the mean episode reward (with its std) and the env score / pass rate per step as a PNG."""
    plt = _pyplot()
    steps = [e["step"] for e in entries]
    mean = [e.get("reward", 0.0) for e in entries]
    std = [e.get("reward_std", 0.0) for e in entries]
    figure, axes = plt.subplots(figsize=(6.5, 3.8), dpi=100)
    try:
        marker = "o" if len(steps) < 40 else None
        axes.plot(steps, mean, marker=marker, label=f"{reward} reward (mean)")
        axes.fill_between(steps, [m - s for m, s in zip(mean, std, strict=True)],
                          [m + s for m, s in zip(mean, std, strict=True)], alpha=0.2)
        if entries and "env/score" in entries[0]:
            axes.plot(steps, [e.get("env/score", 0.0) for e in entries], marker=marker, linestyle="--",
                      label="verifier score")
            axes.plot(steps, [e.get("env/pass_rate", 0.0) for e in entries], marker=marker, linestyle=":",
                      label="pass rate")
        axes.set_xlabel("optimisation step")
        _integer_steps(axes)
        axes.set_ylabel("per-step mean over episodes")
        axes.set_title(title, fontsize=9)
        axes.grid(alpha=0.3)
        axes.legend(fontsize=8)
        figure.tight_layout()
        _save(figure, path)
    finally:
        plt.close(figure)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarize_run(log: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """First, last and mean per-step reward, verifier score and pass rate of one run, as measured."""
    def series(key: str) -> list[float]:
        return [float(e[key]) for e in log if key in e]

    reward, score, passed = series("reward"), series("env/score"), series("env/pass_rate")
    return {
        "steps": float(len(log)),
        "reward_first": reward[0] if reward else 0.0,
        "reward_last": reward[-1] if reward else 0.0,
        "reward_mean": _mean(reward),
        "score_first": score[0] if score else 0.0,
        "score_last": score[-1] if score else 0.0,
        "score_mean": _mean(score),
        "pass_rate_mean": _mean(passed),
        "frac_zero_std_groups": _mean(series("frac_reward_zero_std")),
        "mean_abs_turn_advantage": _mean(series("turn_credit/mean_abs_advantage")),
    }


def reward_slope(log: Sequence[Mapping[str, float]], level: float = 0.95) -> Estimate | None:
    """Least-squares slope of the per-step mean reward of one run, with the regression's interval (t, n - 2 df).

    None with fewer than 2 steps; with 2 steps the slope is exact and the interval is the slope itself.
    """
    points = [(float(e["step"]), float(e["reward"])) for e in log if "reward" in e]
    if len(points) < 2 or len({x for x, _ in points}) < 2:
        return None
    xs, ys = zip(*points, strict=True)
    if len(points) == 2 or len(set(ys)) == 1:
        slope = ols_slope(xs, ys)
        return Estimate(slope, slope, slope, len(points))
    fit = stats.linregress(xs, ys)
    half = float(stats.t.ppf((1 + level) / 2, len(points) - 2) * fit.stderr)
    return Estimate(float(fit.slope), float(fit.slope) - half, float(fit.slope) + half, len(points))


def zero_variance_fraction(log: Sequence[Mapping[str, float]]) -> float | None:
    """The share of the run's GRPO groups whose episodes all got the same reward (so every advantage is 0 and the
    group gives no gradient): the mean over steps of TRL's per-step `frac_reward_zero_std` (every step holds the same
    number of groups). None when the log does not have it."""
    values = [float(e["frac_reward_zero_std"]) for e in log if "frac_reward_zero_std" in e]
    return sum(values) / len(values) if values else None


def slope_summary(log: Sequence[Mapping[str, float]], digits: int = 4) -> str:
    """The reward slope of one run with its interval, and how many of its groups had no reward variance: a slope of
    exactly 0 where no group varied says the run had nothing to learn from, not that it learned and stayed flat."""
    slope = reward_slope(log)
    text = slope.format(digits) if slope is not None else "fewer than 2 steps"
    frac = zero_variance_fraction(log)
    if frac is None:
        return text
    text += f"; {frac:.0%} of GRPO groups had no reward variance"
    return text + (" (every advantage 0: no gradient, nothing learned)" if frac >= 1.0 else "")


def seed_slopes(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per (reward, credit) variant: each seed's reward slope and, with 2 or more seeds, their mean with a t-interval."""
    variants: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        slope = reward_slope(row["log"])
        variants.setdefault((row["reward"], row["credit"]), [])
        if slope is not None:
            variants[(row["reward"], row["credit"])].append(slope.value)
    zero: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        frac = zero_variance_fraction(row["log"])
        if frac is not None:
            zero.setdefault((row["reward"], row["credit"]), []).append(frac)
    return [{"reward": reward, "credit": credit, "seeds": len(slopes), "slopes": slopes,
             "slope": t_interval(slopes).to_dict() if len(slopes) >= 2 else None,
             "zero_std_groups": sum(z) / len(z) if (z := zero.get((reward, credit))) else None}
            for (reward, credit), slopes in variants.items()]


def _slope_cell(summary: Mapping[str, Any]) -> str:
    interval = summary["slope"]
    if interval is not None:
        return Estimate(interval["value"], interval["low"], interval["high"], interval["n"]).format(4)
    return ", ".join(f"{s:+.4f}" for s in summary["slopes"]) or "–"


def comparison_markdown(rows: Sequence[Mapping[str, Any]], label: str) -> str:
    """The variants side by side; `label` says at which scale the numbers were measured."""
    lines = [
        "# RL variants: reward treatment x credit assignment",
        "",
        f"**{label}.** Per-step means over the step's episodes, as logged by the GRPO runs; not evaluated on "
        "held-out envs.",
        "",
        "| reward | credit | steps | wall s | reward first → last (mean) | verifier score first → last (mean) "
        "| pass rate (mean) | groups with zero reward std |",
        "|---|---|---:|---:|---|---|---:|---:|",
    ]
    for row in rows:
        s = row["summary"]
        seed = f" (seed {row['seed']})" if "seed" in row else ""
        lines.append(
            f"| {row['reward']} | {row['credit']}{seed} | {int(s['steps'])} | {row['wall_s']:.0f} "
            f"| {s['reward_first']:.3f} → {s['reward_last']:.3f} ({s['reward_mean']:.3f}) "
            f"| {s['score_first']:.3f} → {s['score_last']:.3f} ({s['score_mean']:.3f}) "
            f"| {s['pass_rate_mean']:.3f} | {s['frac_zero_std_groups']:.2f} |"
        )
    if any("seed" in row for row in rows):
        lines += [
            "",
            "## Does the reward rise? Slope of the per-step reward, per variant over seeds",
            "",
            "Mean of the seeds' least-squares slopes (reward per optimisation step) with a 95% Student-t interval; "
            "`(n.s.)`: the interval contains 0. With one seed the slope is listed without an interval.",
            "",
            "The last column is the share of the variant's GRPO groups (all seeds, all steps) whose episodes all got "
            "the same reward: at 1.00 no group gave a gradient, and a slope of 0 means nothing could be learned.",
            "",
            "| reward | credit | seeds | slope [95% CI] | groups with zero reward std |",
            "|---|---|---:|---|---:|",
        ]
        lines += [f"| {v['reward']} | {v['credit']} | {v['seeds']} | {_slope_cell(v)} | "
                  + ("–" if v["zero_std_groups"] is None else f"{v['zero_std_groups']:.2f}") + " |"
                  for v in seed_slopes(rows)]
    lines += [
        "",
        "A group whose episodes all got the same reward has zero advantage and gives no gradient; with turn credit "
        "a turn whose reward is the same across the group gives none for that turn.",
        "",
    ]
    return "\n".join(lines)


def write_comparison_plot(path: Path, runs: Mapping[str, Sequence[Mapping[str, float]]], label: str) -> None:
    """Verifier score per step of every variant (comparable across treatments) and each run's own reward."""
    plt = _pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4), dpi=100)
    try:
        for name, log in runs.items():
            steps = [e["step"] for e in log]
            left.plot(steps, [e.get("env/score", 0.0) for e in log], marker="o", label=name)
            right.plot(steps, [e.get("reward", 0.0) for e in log], marker="o", label=name)
        left.set_title("verifier score (partial credit) per step", fontsize=9)
        right.set_title("each variant's own reward per step", fontsize=9)
        _per_step(left, right)
        right.legend(fontsize=7)
        _finish(figure, label, path)
    finally:
        plt.close(figure)


def variant_table(runs: Sequence[Mapping[str, Any]], sft_pass_at_1: float,
                  order: Sequence[tuple[str, str]] | None = None,
                  reference: tuple[str, str] = REFERENCE_VARIANT) -> list[dict[str, Any]]:
    """Per reward x credit variant over its seeds: the training-reward slope and held-out pass@1 after RL with
    Student-t intervals, RL - SFT (each run's pass@1 minus the SFT checkpoint's on the same envs), and the Welch
    difference of slope and pass@1 to the `reference` variant. Each run is a mapping with `reward`, `credit`,
    `slope` (None without 2 steps) and `heldout_pass_at_1`. Intervals come as `Estimate.to_dict()` (with
    `significant`); with one seed the bare values are listed and no interval is claimed."""
    by_variant: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for run in runs:
        by_variant.setdefault((run["reward"], run["credit"]), []).append(run)

    def slopes(group: Sequence[Mapping[str, Any]]) -> list[float]:
        return [float(r["slope"]) for r in group if r["slope"] is not None]

    def passes(group: Sequence[Mapping[str, Any]]) -> list[float]:
        return [float(r["heldout_pass_at_1"]) for r in group]

    def interval(values: list[float]) -> Any:
        return t_interval(values).to_dict() if len(values) >= 2 else values

    def versus(ref: list[float], values: list[float]) -> Any:
        return welch_difference(ref, values).to_dict() if len(ref) >= 2 and len(values) >= 2 else None

    baseline = by_variant.get(reference, [])
    rows = []
    for variant in list(order or sorted(by_variant)):
        group = by_variant.get(variant)
        if not group:
            continue
        row: dict[str, Any] = {"variant": "/".join(variant), "seeds": len(group), "slope": interval(slopes(group)),
                               "heldout_pass_at_1": interval(passes(group)),
                               "rl_minus_sft": interval([p - sft_pass_at_1 for p in passes(group)]),
                               "sft_pass_at_1_same_envs": sft_pass_at_1}
        if variant != reference:
            row["slope_vs_reference"] = versus(slopes(baseline), slopes(group))
            row["pass_vs_reference"] = versus(passes(baseline), passes(group))
        rows.append(row)
    return rows


def _band(series: Sequence[Sequence[float]], level: float = 0.95) -> tuple[list[float], list[float], list[float]]:
    """Per step: the mean over seeds and its Student-t interval (the mean itself with one seed)."""
    means, lows, highs = [], [], []
    for values in zip(*series, strict=False):
        if len(values) >= 2:
            estimate = t_interval(values, level)
            means.append(estimate.value)
            lows.append(estimate.low)
            highs.append(estimate.high)
        else:
            means.append(values[0])
            lows.append(values[0])
            highs.append(values[0])
    return means, lows, highs


def write_variant_plot(path: Path, runs: Sequence[Mapping[str, Any]], sft_pass_at_1: float, label: str) -> None:
    """One line per reward x credit variant, averaged over its seeds with a 95% t-band: the variant's own training
    reward and the verifier score per step; then held-out pass@1 after RL per variant (each seed a dot, the mean with
    its t-interval) against the SFT checkpoint's on the same envs."""
    plt = _pyplot()
    variants: dict[str, list[Mapping[str, Any]]] = {}
    for run in runs:
        variants.setdefault(f"{run['reward']}/{run['credit']}", []).append(run)
    figure, (reward_ax, score_ax, pass_ax) = plt.subplots(1, 3, figsize=(15, 4.2), dpi=100)
    try:
        for index, (name, group) in enumerate(sorted(variants.items())):
            color = f"C{index}"
            for axes, key in ((reward_ax, "reward"), (score_ax, "env/score")):
                curves = [[float(e.get(key, 0.0)) for e in run["log"]] for run in group]
                steps = [e["step"] for e in min((run["log"] for run in group), key=len)]
                mean, low, high = _band([c[: len(steps)] for c in curves])
                axes.plot(steps, mean, marker="o", color=color, label=f"{name} ({len(group)} seeds)")
                axes.fill_between(steps, low, high, color=color, alpha=0.12)
            passes = [float(run["heldout_pass_at_1"]) for run in group]
            pass_ax.scatter([index] * len(passes), passes, color=color, alpha=0.5, s=14)
            if len(passes) >= 2:
                estimate = t_interval(passes)
                pass_ax.errorbar([index], [estimate.value], yerr=[[estimate.value - estimate.low],
                                                                  [estimate.high - estimate.value]],
                                 fmt="s", color=color, capsize=4)
        pass_ax.axhline(sft_pass_at_1, color="black", linestyle="--", linewidth=1, label="SFT, same envs")
        pass_ax.set_xticks(range(len(variants)), sorted(variants), rotation=30, fontsize=7)
        pass_ax.set_title("held-out pass@1 after RL (mean, 95% t)", fontsize=9)
        pass_ax.legend(fontsize=7)
        reward_ax.set_title("each variant's own training reward per step (mean, 95% t)", fontsize=9)
        score_ax.set_title("verifier score per step (mean, 95% t)", fontsize=9)
        _per_step(reward_ax, score_ax)
        reward_ax.legend(fontsize=7)
        _finish(figure, label, path)
    finally:
        plt.close(figure)
