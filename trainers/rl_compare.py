"""Run every reward-treatment x credit-assignment variant of one RL config (optionally over several seeds) and write
the comparison table, with the reward slope of each variant over seeds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from coworkenv.atomic import atomic_write_bytes, files_together
from coworkenv.spec import EnvSpec
from trainers.checkpoint_files import comparison_held
from trainers.rewards import CREDIT_MODES, REWARD_MODES, CreditMode, RewardMode
from trainers.rl import RLResult, train_rl
from trainers.rl_config import RLRunConfig, load_rl_config
from trainers.rl_report import comparison_markdown, seed_slopes, summarize_run, write_comparison_plot
from trainers.training_report import write_json_atomic

__all__ = ["RLComparison", "compare_rl_variants", "mean_log", "scale_label"]

COMPARISON_MD = "comparison.md"
COMPARISON_JSON = "comparison.json"
COMPARISON_PLOT = "comparison.png"


@dataclass(frozen=True)
class RLComparison:
    """The variants' results and where the table, its JSON and the plot were written."""

    label: str
    rows: list[dict[str, Any]]
    markdown: Path
    json: Path
    plot: Path


TOY_PARAMETERS = 100_000_000  # below this a model cannot do these tasks; its numbers are toy scale


def scale_label(config: RLRunConfig, parameters: int) -> str:
    """What the numbers were measured on, stated plainly (the tiny setup is a toy)."""
    device = "GPU" if torch.cuda.is_available() else "CPU"
    size = f"{parameters / 1e6:.1f}M parameters"
    if config.model.source == "tiny":
        return f"toy scale: tiny randomly initialised model ({size}) on {device}"
    toy = "toy scale: " if parameters < TOY_PARAMETERS else ""
    return f"{toy}model {config.model.name_or_path} ({size}) on {device}"


def compare_rl_variants(
    config: RLRunConfig | str | Path, specs: Sequence[EnvSpec], out_dir: Path, *,
    rewards: Sequence[RewardMode] = REWARD_MODES,
    credits: Sequence[CreditMode] = CREDIT_MODES,
    model_path: str | Path | None = None, max_steps: int | None = None, seeds: Sequence[int] | None = None,
    on_variant: Callable[[RLResult], None] | None = None, model_record: str | None = None,
) -> RLComparison:
    """Train one run per (reward, credit) into `out_dir/<reward>-<credit>/`, then write the comparison files.

    Every variant starts from the same model and seed, so the runs differ only in reward and credit. With `seeds`,
    every variant runs once per seed (training seed replaced) into `out_dir/<reward>-<credit>-s<seed>/`; the
    table then gives each variant's reward slope over the seeds, and the plot the seeds' mean curve. `model_record`:
    see `train_rl`.
    """
    run = config if isinstance(config, RLRunConfig) else load_rl_config(config)
    run = run.variant(model_path=model_path, max_steps=max_steps)
    out_dir = Path(out_dir)
    # Held for the whole comparison: a second one into `out_dir` (run again in another terminal) waited only for each
    # variant's training, replaced the checkpoints this one had reported, and the comparison written last named
    # folders holding the other's runs.
    with comparison_held(out_dir):
        return _compare_into(run, specs, out_dir, rewards, credits, seeds, on_variant, model_record)


def _compare_into(run: RLRunConfig, specs: Sequence[EnvSpec], out_dir: Path, rewards: Sequence[RewardMode],
                  credits: Sequence[CreditMode], seeds: Sequence[int] | None,
                  on_variant: Callable[[RLResult], None] | None, model_record: str | None) -> RLComparison:
    rows: list[dict[str, Any]] = []
    logs: dict[str, list[list[dict[str, float]]]] = {}
    results: list[RLResult] = []
    for reward in rewards:
        for credit in credits:
            for seed in seeds if seeds is not None else [None]:
                seeded = run if seed is None else run.model_copy(
                    update={"training": run.training.model_copy(update={"seed": seed})})
                folder = f"{reward}-{credit}" + ("" if seed is None else f"-s{seed}")
                result = train_rl(seeded, specs, out_dir / folder, reward=reward, credit=credit,
                                  model_record=model_record)
                results.append(result)
                if on_variant is not None:
                    on_variant(result)
                logs.setdefault(f"{reward}/{credit}", []).append(result.log)
                row = {"reward": reward, "credit": credit, "wall_s": result.wall_s, "steps": result.steps,
                       "out_dir": str(result.out_dir), "summary": summarize_run(result.log), "log": result.log}
                rows.append(row if seed is None else {**row, "seed": seed})
    label = scale_label(run, results[0].parameters)
    markdown, as_json, plot = out_dir / COMPARISON_MD, out_dir / COMPARISON_JSON, out_dir / COMPARISON_PLOT
    with files_together():  # the three of one comparison, or (a full disk) the earlier three left as they were
        atomic_write_bytes(markdown, comparison_markdown(rows, label).encode("utf-8"))
        write_json_atomic(as_json, {"label": label, "config": run.to_dict(), "envs": [s.id for s in specs],
                                    "variants": rows, "slopes": seed_slopes(rows) if seeds is not None else []})
        write_comparison_plot(plot, {name: mean_log(runs) for name, runs in logs.items()}, label)
    return RLComparison(label, rows, markdown, as_json, plot)


def mean_log(runs: Sequence[Sequence[dict[str, float]]]) -> list[dict[str, float]]:
    """The per-step mean over runs (seeds) of every logged value, at the steps all runs logged."""
    by_step: dict[float, list[dict[str, float]]] = {}
    for log in runs:
        for entry in log:
            by_step.setdefault(entry["step"], []).append(entry)
    out = []
    for _, entries in sorted(by_step.items()):
        if len(entries) == len(runs):
            keys = set.intersection(*(set(e) for e in entries))
            out.append({key: sum(e[key] for e in entries) / len(entries) for key in sorted(keys)})
    return out
