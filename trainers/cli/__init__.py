"""`coworkenv train` and `coworkenv eval`, registered through the `coworkenv.commands` entry point group.

The library never imports the trainers: `coworkenv.cli` finds this `register` through the package metadata
(`[project.entry-points."coworkenv.commands"]` in pyproject.toml).
"""

from __future__ import annotations

import typer

from trainers.cli import eval as evaluate
from trainers.cli import train


def register(app: typer.Typer) -> None:
    """Add `train` (SFT, RL, the RL comparison) and `eval` to the `coworkenv` command line."""
    app.add_typer(train.app, name="train")
    app.command("eval")(evaluate.eval_command)


__all__ = ["register"]
