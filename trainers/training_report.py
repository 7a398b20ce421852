"""Run artefacts written next to a checkpoint: JSON logs and the loss curve, each written atomically."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coworkenv.atomic import atomic_write, atomic_write_bytes

__all__ = ["write_json_atomic", "write_loss_curve"]


def write_json_atomic(path: Path, data: Any) -> None:
    """Write `data` as indented JSON to `path`, atomically."""
    payload = (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8")
    atomic_write_bytes(path, payload)


def write_loss_curve(path: Path, entries: Sequence[dict[str, float]], title: str) -> None:
    """Plot training loss against optimisation step as a PNG at `path`."""
    # Agg: no display is needed (CI, Dagster workers, remote GPU nodes).
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    steps = [entry["step"] for entry in entries]
    losses = [entry["loss"] for entry in entries]
    figure, axes = plt.subplots(figsize=(6, 3.5), dpi=100)
    try:
        axes.plot(steps, losses, marker="." if len(steps) < 60 else None, linewidth=1.2)
        axes.set_xlabel("step")
        axes.set_ylabel("training loss (assistant tokens)")
        axes.set_title(title)
        axes.grid(alpha=0.3)
        figure.tight_layout()
        atomic_write(path, lambda handle: figure.savefig(handle, format="png"))
    finally:
        plt.close(figure)
