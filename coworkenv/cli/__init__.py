"""The `coworkenv` command line; each area registers its own commands.

Commands of other installed packages (the trainers' `train` and `eval`) arrive through the `coworkenv.commands`
entry point group, so the library never imports them.
"""

from __future__ import annotations

import logging
from importlib.metadata import entry_points

import typer

from coworkenv.cli import curate, env, import_, rollout, serve, synth, validate

PLUGIN_GROUP = "coworkenv.commands"

app = typer.Typer(help="coworkenv: executable, verifiable environments for AI coworkers.", no_args_is_help=True)
app.add_typer(env.app, name="env")
synth.register(app)  # taxonomy, synth
app.command("validate")(validate.validate_command)
app.command("rollout")(rollout.rollout_command)
app.command("curate")(curate.curate_command)
app.command("serve")(serve.serve_command)
app.add_typer(import_.app, name="import")


def _register_plugins() -> None:
    for point in sorted(entry_points(group=PLUGIN_GROUP), key=lambda p: p.name):
        try:
            point.load()(app)
        except ImportError as exc:  # a plugin whose dependencies are missing must not take the CLI down with it
            logging.getLogger(__name__).warning(
                "coworkenv: the %r commands are unavailable (%s: %s); install the package that provides them",
                point.name, point.value, exc)


_register_plugins()


def main() -> None:
    """Entry point of the `coworkenv` script."""
    app()


__all__ = ["PLUGIN_GROUP", "app", "main"]
