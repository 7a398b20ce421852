"""SFT callbacks for a learnability study: held-out pass@1 every N steps (the learning curve) and a training budget
that excludes the time spent evaluating.

The budget is counted on one of two clocks: `wall` (seconds of wall-clock time) or `cpu` (seconds of this process's
CPU time). On a machine that other jobs share, wall-clock time measures the neighbours as much as the training; the
process's CPU time is what the training itself consumed, so a `cpu` budget of 30 minutes buys the same training on a
busy machine as 30 wall-clock minutes of a single-threaded run on an idle one.

With `anneal_lr`, the learning rate follows the budget instead of the step count: linear warmup over the
config's `warmup_steps`, then a cosine from the peak to 0 over the budget's seconds. A step-based cosine ends at
`max_steps`, which only matches the budget at the step rate it was sized for; on a busier machine (slower steps)
the run stops with the rate still high, and a second run with another step rate anneals differently.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from transformers import TrainerCallback

from coworkenv.spec import EnvSpec
from trainers.evaluate import evaluate
from trainers.local_backend import LocalTransformersBackend

__all__ = ["BudgetClock", "CurvePoint", "HeldoutCurve", "write_learning_curve"]

BudgetClock = Literal["wall", "cpu"]
_CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass(frozen=True)
class CurvePoint:
    """Held-out results of the model after `step` optimisation steps and `train_s` seconds of training."""

    step: int
    train_s: float
    pass_at_1: float
    mean_score: float
    envs: int


class HeldoutCurve(TrainerCallback):  # type: ignore[misc]
    """Evaluates the model being trained on `specs` every `every` steps and at the end (and at step 0 with
    `at_start`), greedy, k = 1; stops training once `budget_s` seconds of training (evaluation time excluded) have
    passed on `clock` (`wall` or `cpu`, see the module's docstring). `train_seconds` is on that clock,
    `train_wall_seconds` always on the wall clock."""

    def __init__(self, specs: Sequence[EnvSpec], every: int, rendering: str, *, budget_s: float | None = None,
                 clock: BudgetClock = "wall", at_start: bool = True, max_tokens: int = 192, max_steps: int = 12,
                 anneal_lr: bool = False, log: Any = print) -> None:
        if every < 1:
            raise ValueError(f"evaluate every >= 1 steps, got {every}")
        if clock not in _CLOCKS:
            raise ValueError(f"unknown budget clock {clock!r}; use one of {', '.join(_CLOCKS)}")
        self.clock = clock
        self._now = _CLOCKS[clock]
        self.specs = list(specs)
        self.every = every
        self.rendering = rendering
        self.budget_s = budget_s
        if anneal_lr and not budget_s:
            raise ValueError("anneal_lr needs a training budget (budget_s > 0)")
        self.anneal_lr = anneal_lr
        self.max_tokens = max_tokens
        self.max_steps = max_steps
        self.log = log
        self.at_start = at_start
        self.points: list[CurvePoint] = []
        self._started = 0.0
        self._eval_s = 0.0
        self._wall_started = 0.0
        self._eval_wall_s = 0.0

    def train_seconds(self) -> float:
        """Seconds of training so far on the budget's clock, evaluations excluded."""
        return self._now() - self._started - self._eval_s

    def train_wall_seconds(self) -> float:
        """Wall-clock seconds of training so far, evaluations excluded."""
        return time.perf_counter() - self._wall_started - self._eval_wall_s

    def lr_factor(self, step: int, warmup_steps: int) -> float:
        """The learning rate's multiplier at `step` under `anneal_lr`: warmup by steps, cosine over the budget."""
        assert self.budget_s
        warm = min(1.0, step / warmup_steps) if warmup_steps > 0 else 1.0
        spent = min(1.0, max(0.0, self.train_seconds() / self.budget_s))
        return warm * 0.5 * (1.0 + math.cos(math.pi * spent))

    def _anneal(self, args: Any, scheduler: Any) -> None:
        """Make the trainer's LambdaLR scheduler (every transformers schedule is one) follow the budget."""
        lambdas = getattr(scheduler, "lr_lambdas", None)
        if lambdas is None:
            raise TypeError(f"anneal_lr needs a LambdaLR scheduler, got {type(scheduler).__name__}")
        warmup = int(args.get_warmup_steps(args.max_steps)) if args.max_steps > 0 else int(args.warmup_steps or 0)
        scheduler.lr_lambdas = [lambda step: self.lr_factor(step, warmup) for _ in lambdas]

    def _evaluate(self, step: int, model: Any, tokenizer: Any) -> None:
        started, wall_started = self._now(), time.perf_counter()
        train_s = self.train_seconds()
        was_training = model.training
        model.eval()
        backend = LocalTransformersBackend(model, tokenizer, name=f"sft-step-{step}", rendering=self.rendering)
        report = evaluate(backend, self.specs, 1, max_tokens=self.max_tokens, max_steps=self.max_steps,
                          concurrency=1)
        if was_training:
            model.train()
        point = CurvePoint(step, round(train_s, 1), report.overall.pass_at_1, report.overall.mean_score,
                           report.overall.envs)
        self.points.append(point)
        self._eval_s += self._now() - started
        self._eval_wall_s += time.perf_counter() - wall_started
        self.log(f"curve step {step}: train {train_s:.0f}s ({self.clock}) pass@1 {point.pass_at_1:.3f} "
                 f"score {point.mean_score:.3f} (eval {time.perf_counter() - wall_started:.0f}s)")

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._started, self._wall_started = self._now(), time.perf_counter()
        self._eval_s = self._eval_wall_s = 0.0
        if self.anneal_lr:
            self._anneal(args, kwargs["lr_scheduler"])
        if self.at_start:
            self._evaluate(0, kwargs["model"], kwargs["processing_class"])

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.budget_s is not None and self.train_seconds() >= self.budget_s:
            control.should_training_stop = True
        if state.global_step % self.every == 0 or control.should_training_stop:
            self._evaluate(int(state.global_step), kwargs["model"], kwargs["processing_class"])

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if not self.points or self.points[-1].step != state.global_step:
            self._evaluate(int(state.global_step), kwargs["model"], kwargs["processing_class"])

    def to_dict(self) -> list[dict[str, Any]]:
        return [asdict(p) for p in self.points]


def write_learning_curve(path: Path, points: Sequence[CurvePoint | dict[str, Any]], title: str,
                         baseline: float | None = None) -> None:
    """Plot held-out pass@1 (and mean score) against training steps as a PNG at `path`."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from coworkenv.atomic import atomic_write

    rows = [asdict(p) if isinstance(p, CurvePoint) else dict(p) for p in points]
    steps = [r["step"] for r in rows]
    figure, axes = plt.subplots(figsize=(6.5, 3.8), dpi=100)
    try:
        axes.plot(steps, [r["pass_at_1"] for r in rows], marker="o", label="held-out pass@1")
        axes.plot(steps, [r["mean_score"] for r in rows], marker=".", linestyle="--", label="held-out mean score")
        if baseline is not None:
            axes.axhline(baseline, color="grey", linewidth=0.8, linestyle=":", label="target pass@1")
        axes.set_xlabel("SFT step")
        axes.set_ylabel("fraction")
        axes.set_ylim(-0.02, 1.02)
        axes.set_title(title)
        axes.grid(alpha=0.3)
        axes.legend(loc="upper left", fontsize=8)
        figure.tight_layout()
        atomic_write(path, lambda handle: figure.savefig(handle, format="png"))
    finally:
        plt.close(figure)
