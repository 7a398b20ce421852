"""Run artefacts written next to a checkpoint: JSON logs and the loss curve, each written atomically."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["write_json_atomic", "write_loss_curve"]


def _replace_atomically(path: Path, write: Any, suffix: str) -> None:
    """Write through a temporary file in the same folder, fsync it, then rename over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    """Write `data` as indented JSON to `path`, atomically."""
    payload = (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8")
    _replace_atomically(path, lambda handle: handle.write(payload), ".json")


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
        _replace_atomically(path, lambda handle: figure.savefig(handle, format="png"), ".png")
    finally:
        plt.close(figure)
