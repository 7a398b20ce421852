"""RL run reports: the reward curve of one run, and the comparison table of reward/credit variants.

Numbers are what the runs logged per optimisation step (TRL's `reward`, `reward_std`, `frac_reward_zero_std`, and
the env's verifier score and pass rate of the step's episodes); nothing is smoothed or extrapolated.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coworkenv.atomic import atomic_write_bytes

__all__ = ["comparison_markdown", "summarize_run", "write_comparison_plot", "write_reward_curve"]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display on CI, Dagster workers or GPU nodes
    from matplotlib import pyplot as plt

    return plt


def _integer_steps(axes: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # steps are whole numbers


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
        lines.append(
            f"| {row['reward']} | {row['credit']} | {int(s['steps'])} | {row['wall_s']:.0f} "
            f"| {s['reward_first']:.3f} → {s['reward_last']:.3f} ({s['reward_mean']:.3f}) "
            f"| {s['score_first']:.3f} → {s['score_last']:.3f} ({s['score_mean']:.3f}) "
            f"| {s['pass_rate_mean']:.3f} | {s['frac_zero_std_groups']:.2f} |"
        )
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
        for axes in (left, right):
            axes.set_xlabel("optimisation step")
            _integer_steps(axes)
            axes.grid(alpha=0.3)
        right.legend(fontsize=7)
        figure.suptitle(label, fontsize=9)
        figure.tight_layout()
        _save(figure, path)
    finally:
        plt.close(figure)
