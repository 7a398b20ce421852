"""The `coworkenv` command line; each area registers its own commands."""

from __future__ import annotations

import typer

from coworkenv.cli import curate, env, import_, rollout, serve, synth, train, validate
from coworkenv.cli import eval as evaluate

app = typer.Typer(help="coworkenv: executable, verifiable environments for AI coworkers.", no_args_is_help=True)
app.add_typer(env.app, name="env")
synth.register(app)  # taxonomy, synth
app.command("validate")(validate.validate_command)
app.command("rollout")(rollout.rollout_command)
app.command("curate")(curate.curate_command)
app.add_typer(train.app, name="train")
app.command("eval")(evaluate.eval_command)
app.command("serve")(serve.serve_command)
app.add_typer(import_.app, name="import")


def main() -> None:
    """Entry point of the `coworkenv` script."""
    app()


__all__ = ["app", "main"]
