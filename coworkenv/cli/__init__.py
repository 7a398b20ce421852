"""The `coworkenv` command line; each area registers its own sub-app."""

from __future__ import annotations

import typer

from coworkenv.cli import env

app = typer.Typer(help="coworkenv: executable, verifiable environments for AI coworkers.", no_args_is_help=True)
app.add_typer(env.app, name="env")


def main() -> None:
    """Entry point of the `coworkenv` script."""
    app()


__all__ = ["app", "main"]
