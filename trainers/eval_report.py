"""The evaluation report as a reader sees it: Markdown tables, a bar chart, and the JSON behind both.

`write_eval_report` takes one report or a comparison (base vs SFT vs RL) and writes `eval_report.md`,
`eval_report.json` and `eval_report.png` into a folder; the Markdown is also what goes into asset metadata and the
model card. Every number is what `trainers.evaluate` measured. Differences between models carry a 95% paired
bootstrap interval over envs (`trainers.eval_ci`) for pass@1 and mean score, marked `(n.s.)` when it contains 0;
pass^k differences are plain subtractions (pass^k is one number per env set, not a mean over envs).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from coworkenv.atomic import atomic_write_bytes
from trainers.eval_ci import report_differences
from trainers.evaluate import EvalReport, ReportComparison, compare_reports, describe_settings_differences
from trainers.training_report import write_json_atomic

__all__ = ["EVAL_JSON", "EVAL_MARKDOWN", "EVAL_PLOT", "EvalReportFiles", "differences", "render_markdown",
           "write_eval_plot", "write_eval_report"]

EVAL_MARKDOWN = "eval_report.md"
EVAL_JSON = "eval_report.json"
EVAL_PLOT = "eval_report.png"
_METRICS = (("pass_at_1", "pass@1"), ("pass_hat_k", "pass^k"), ("mean_score", "mean score"))
INTERVAL_METRICS = ("pass_at_1", "mean_score")  # means over envs: a paired bootstrap interval applies


@dataclass(frozen=True)
class EvalReportFiles:
    markdown: Path
    json: Path
    plot: Path


def _as_comparison(report: EvalReport | ReportComparison) -> ReportComparison:
    return report if isinstance(report, ReportComparison) else compare_reports({report.model: report})


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _interval_cell(interval: dict[str, float] | None) -> str:
    if interval is None:
        return "–"
    mark = "" if interval["significant"] else " (n.s.)"
    return f"[{interval['low']:+.3f}, {interval['high']:+.3f}]{mark}"


def differences(comparison: ReportComparison) -> dict[tuple[str, str, str], dict[str, float]]:
    """(group, metric, "b-a") -> the paired bootstrap estimate of mean(b) - mean(a), for every later model vs the
    first (empty when the reports cover different envs, a paired difference needs the same envs, or were run under
    different settings: the interval would measure the settings as much as the models)."""
    if not comparison.comparable or len(comparison.labels) < 2:
        return {}
    out = {}
    for row in report_differences(comparison.reports):
        for key, value in row.items():
            if isinstance(value, dict) and "-" in key and key.endswith(f"-{comparison.labels[0]}"):
                out[(row["group"], row["metric"], key)] = value
    return out


def render_markdown(report: EvalReport | ReportComparison, title: str = "Evaluation", note: str = "") -> str:
    """Markdown: what was run, then one table per metric with a column per model and the change vs the first,
    overall, single- vs multi-turn and per capability, with a 95% paired bootstrap interval on each change."""
    comparison = _as_comparison(report)
    intervals = differences(comparison)
    labels = comparison.labels
    first = comparison.reports[labels[0]]
    lines = [f"# {title}", ""]
    if note:
        lines += [note, ""]
    lines.append(f"k = {first.k} samples per env; {len(first.env_ids)} envs; pass@1 = mean fraction of passing "
                 "samples per env, pass^k = fraction of envs where all k samples pass, score = mean verifier score.")
    if intervals:
        lines.append("Changes in pass@1 and mean score carry a 95% paired bootstrap interval over envs (95% CI); "
                     "`(n.s.)`: the interval contains 0.")
    lines.append("")
    for label, r in comparison.reports.items():
        sampling = ", ".join(f"{k}={v}" for k, v in sorted(r.sampling.items()))
        stops: dict[str, int] = {}
        for episode in r.episodes:
            stops[episode.stop_reason] = stops.get(episode.stop_reason, 0) + 1
        ended = ", ".join(f"{reason} {n}" for reason, n in sorted(stops.items()))
        lines.append(f"- **{label}**: model `{r.model}`, {r.overall.episodes} episodes ({ended}), {sampling}, "
                     f"{r.wall_s:.0f} s")
    if not comparison.same_envs:
        lines += ["", "**The reports cover different envs; columns are not directly comparable.**"]
    if comparison.settings_differ:
        lines += ["", "**The reports were run under different settings "
                  f"({describe_settings_differences(comparison.settings_differ)}): the runs are not like-for-like, "
                  "a change between columns measures the settings as much as the models; no intervals are given.**"]
    for name, heading in _METRICS:
        deltas = labels[1:]
        with_ci = bool(intervals) and name in INTERVAL_METRICS
        header = ["group", "envs", *labels]
        for delta in deltas:
            header += [f"{delta} − {labels[0]}", *(["95% CI"] if with_ci else [])]
        lines += ["", f"## {heading}", "", "| " + " | ".join(header) + " |",
                  "|" + "---|" + "---:|" * (len(header) - 1)]
        for group in comparison.groups():
            values = [comparison.metric(group, label, name) for label in labels]
            envs = first.groups().get(group)
            diffs = [None if v is None or values[0] is None else v - values[0] for v in values[1:]]
            cells: list[str] = []
            for d, label in zip(diffs, deltas, strict=True):
                cells.append("–" if d is None else f"{d:+.3f}")
                if with_ci:
                    cells.append(_interval_cell(intervals.get((group, name, f"{label}-{labels[0]}"))))
            row = [group, str(envs.envs if envs else "–"), *map(_cell, values), *cells]
            lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    return "\n".join(lines)


def write_eval_plot(path: Path, report: EvalReport | ReportComparison, title: str = "Evaluation") -> None:
    """Grouped bars per group (overall, single/multi-turn, capabilities): pass@1 and mean score per model."""
    import matplotlib

    matplotlib.use("Agg")  # no display on CI, Dagster workers or GPU nodes
    from matplotlib import pyplot as plt

    comparison = _as_comparison(report)
    groups = comparison.groups()
    labels = comparison.labels
    width = 0.8 / len(labels)
    figure, axes = plt.subplots(2, 1, figsize=(max(7.0, 0.55 * len(groups) * max(1, len(labels)) + 2), 7), dpi=100)
    try:
        for panel, (name, heading) in zip(axes, (_METRICS[0], _METRICS[2]), strict=True):
            for index, label in enumerate(labels):
                values = [comparison.metric(g, label, name) or 0.0 for g in groups]
                positions = [g + (index - (len(labels) - 1) / 2) * width for g in range(len(groups))]
                panel.bar(positions, values, width, label=label)
            panel.set_ylim(0, 1.05)
            panel.set_ylabel(heading)
            panel.set_xticks(range(len(groups)))
            panel.set_xticklabels(groups, rotation=35, ha="right", fontsize=7)
            panel.grid(axis="y", alpha=0.3)
        axes[0].legend(fontsize=8)
        axes[0].set_title(f"{title} (k={comparison.reports[labels[0]].k})", fontsize=10)
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        atomic_write_bytes(path, buffer.getvalue())
    finally:
        plt.close(figure)


def write_eval_report(out_dir: Path, report: EvalReport | ReportComparison, title: str = "Evaluation",
                      note: str = "") -> EvalReportFiles:
    """Write the Markdown report, its JSON and the plot into `out_dir` (atomically, each file)."""
    out_dir = Path(out_dir)
    comparison = _as_comparison(report)
    files = EvalReportFiles(out_dir / EVAL_MARKDOWN, out_dir / EVAL_JSON, out_dir / EVAL_PLOT)
    markdown = render_markdown(comparison, title, note)
    atomic_write_bytes(files.markdown, markdown.encode("utf-8"))
    write_json_atomic(files.json, {"title": title, "note": note, **comparison.to_dict(),
                                   "differences": report_differences(comparison.reports) if comparison.comparable else []})
    write_eval_plot(files.plot, comparison, title)
    return files
