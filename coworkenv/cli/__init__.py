"""The `coworkenv` command line; each area registers its own commands.

Commands of other installed packages (the trainers' `train` and `eval`) arrive through the `coworkenv.commands`
entry point group, so the library never imports them.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import signal
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import typer
from typer._click import Context  # typer vendors click: its Context is the one TyperGroup takes
from typer._click.exceptions import BadParameter, NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from coworkenv.atomic import WriteError, os_reason, path_advice
from coworkenv.cli import curate, env, import_, mark_episodes, rollout, serve, synth, validate
from coworkenv.cli._limits import oversized_option
from coworkenv.commands import error_line
from coworkenv.log_lines import escape_last_resort
from coworkenv.name_bytes import holds_undecodable_bytes, undecodable_name_reason
from coworkenv.open_files import raise_open_files_limit
from coworkenv.sandbox import required_layers
from coworkenv.standard_output import StandardOutputError, standard_output_stop, watching_standard_output
from coworkenv.stop_signals import unhandled_stop_signals
from coworkenv.unexpanded_paths import KEPT_ON_THE_COMMAND_LINE, unexpanded_home, unexpanded_variable

PLUGIN_GROUP = "coworkenv.commands"
USAGE_ERROR = 2  # bad input: a setting, an argument
SYSTEM_ERROR = 1  # the machine refused: a full disk, a read-only folder, a file where a folder should be
TERMINATED = 128 + signal.SIGTERM


class _CommandGroup(TyperGroup):
    """The top-level group: a failure of the file system in any command is one `error:` line, not a traceback."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:  # an option of `coworkenv` itself (`coworkenv --verbose synth`)
            typer.echo(_usage_error_line(exc, ctx.command_path), err=True)
            raise typer.Exit(exc.exit_code) from None

    def invoke(self, ctx: Context) -> Any:
        command = [*ctx._protected_args, *ctx.args]  # the subcommand and its arguments (invoking consumes them)
        oversized = oversized_option(command)
        if oversized is not None:  # Arrow, Polars and orjson would fail on it deep in the run, with a traceback
            typer.echo(error_line(f"{oversized}"), err=True)
            raise typer.Exit(USAGE_ERROR)
        not_utf8 = next((arg for arg in command if holds_undecodable_bytes(arg)), None)
        if not_utf8 is not None:  # refused before any work: no later command could read what it names
            typer.echo(error_line(f"{not_utf8}: {undecodable_name_reason(not_utf8)}"), err=True)
            raise typer.Exit(USAGE_ERROR)
        unexpanded = _unexpanded_argument(command)
        if unexpanded is not None:  # the files would go to a folder named `~` or `$HOME` under the current folder
            typer.echo(error_line(unexpanded), err=True)
            raise typer.Exit(USAGE_ERROR)
        try:
            required_layers()  # a typo in COWORKENV_SANDBOX_REQUIRE must stop every command, not only spec code
        except ValueError as exc:
            typer.echo(error_line(f"{exc}; fix or unset the variable"), err=True)
            raise typer.Exit(USAGE_ERROR) from None
        try:
            return super().invoke(ctx)
        except NoArgsIsHelpError:  # `coworkenv env`: the help, as asked
            raise
        except UsageError as exc:  # a subcommand's option or argument: one line, not Typer's box
            parsed_here = exc.ctx is None or exc.ctx.command is self  # the parser's errors name no subcommand
            named = [command[0]] if parsed_here and command and command[0] in self.commands else []
            typer.echo(_usage_error_line(exc, " ".join([ctx.command_path, *named])), err=True)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            _say_stopped(command[:1], signal.SIGINT)
            raise typer.Exit(128 + signal.SIGINT) from None
        except _Stopped as stop:
            _say_stopped(command[:1], signal.Signals(stop.signo))
            raise
        except WriteError as exc:
            typer.echo(error_line(f"{exc}"), err=True)
            raise typer.Exit(SYSTEM_ERROR) from None
        except OSError as exc:
            if isinstance(exc, StandardOutputError):  # not a file of the command: `| head`, `> /dev/full`
                raise typer.Exit(standard_output_stop(exc)) from None
            # A reader or writer that did not name its file; say what the system said, and where if it knows.
            where = f"{exc.filename}: " if exc.filename else ""
            advice = path_advice(Path(str(exc.filename)), exc) if exc.filename else \
                "check the path, its permissions and the free disk space, then run again"
            typer.echo(error_line(f"{where}{os_reason(exc)} ({type(exc).__name__}); {advice}"), err=True)
            raise typer.Exit(SYSTEM_ERROR) from None
        except UnicodeEncodeError as exc:
            if not isinstance(exc.object, str) or "surrogates" not in exc.reason:
                raise
            # A file found in a folder whose name Python could not decode (not UTF-8, or an ASCII locale).
            typer.echo(error_line(f"{exc.object}: {undecodable_name_reason(exc.object)}"), err=True)
            raise typer.Exit(USAGE_ERROR) from None
        except Exception as exc:
            # A library's own error type for a failure of the file system (safetensors saving a checkpoint on a
            # full disk raises SafetensorError "... (os error 27)"): the same one line as an OSError.
            system = _os_error_inside(exc)
            if system is None:
                raise
            first = (str(exc).strip().splitlines() or [""])[0]
            typer.echo(error_line(f"{first} ({type(exc).__name__}); {path_advice(None, system)}"), err=True)
            raise typer.Exit(SYSTEM_ERROR) from None


def _usage_error_line(exc: UsageError, command: str) -> str:
    """A usage error (a value of the wrong type or out of range, an unknown or missing option) as one `error:` line
    naming the command, what is wrong and where to read more. Typer drew a box sized to the terminal, wrapping the
    message over several lines (in a log, 80 columns) under a "Usage:" line, so no line of it said `error:`."""
    where = exc.ctx.command_path if exc.ctx is not None and exc.ctx.command_path != command.split(" ")[0] else command
    problem = exc.format_message().strip().rstrip(".")
    param = exc.param if isinstance(exc, BadParameter) else None
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if low is not None or high is not None:  # "Input should be less than or equal to 1000" names one bound
        problem += f" (allowed: {'from ' + str(low) if low is not None else ''}" \
                   f"{' to ' + str(high) if high is not None else ' up'})".replace("( to", "(up to")
    see = " " if problem.endswith("?") else "; "  # "Did you mean 'synth'?"
    return error_line(f"{where}: {problem}{see}see `{where} --help`")


def _unexpanded_argument(args: list[str]) -> str | None:
    """The first argument or `--option=VALUE` whose path starts with a `~`, or holds a `$HOME` (a path that is not
    there as written), that no shell expanded, as a message."""
    for arg in args:
        option, equals, value = arg.partition("=") if arg.startswith("-") else ("", "", arg)
        if option and not equals:
            continue
        problem = unexpanded_home(value)
        if problem is None and not os.path.lexists(value):  # a folder really named `$HOME` is read as named
            problem = unexpanded_variable(value, KEPT_ON_THE_COMMAND_LINE)
        if problem is not None:
            return f"{arg}: the path {problem}"
    return None


_QUOTED_OS_ERROR = re.compile(r"\(os error (\d+)\)")  # how Rust-backed libraries (safetensors, tokenizers) quote one


def _os_error_inside(error: BaseException) -> OSError | None:
    """The OSError an error wraps (as its explicit cause, or quoted in its message), if any."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno:
            return seen
        quoted = _QUOTED_OS_ERROR.search(str(seen))
        if quoted:
            code = int(quoted[1])
            return OSError(code, os.strerror(code))
        if isinstance(seen, RuntimeError) and str(seen).startswith("Symlink loop from"):  # Path.resolve, 3.11
            return OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        seen = seen.__cause__  # not __context__: an error handled on the way is not what failed
    return None


app = typer.Typer(cls=_CommandGroup, help="coworkenv: executable, verifiable environments for AI coworkers.",
                  no_args_is_help=True)
app.add_typer(env.app, name="env")
synth.register(app)  # taxonomy, synth
app.command("validate")(validate.validate_command)
app.command("rollout")(rollout.rollout_command)
app.command("curate")(curate.curate_command)
app.command("mark-episodes")(mark_episodes.mark_episodes_command)
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


class _Stopped(SystemExit):
    """A stop signal (SIGTERM, SIGHUP, ...: coworkenv.stop_signals) unwinding the command like Ctrl-C, with the
    shell's exit code 128 + signal."""

    def __init__(self, signo: int) -> None:
        super().__init__(128 + signo)
        self.signo = signo


def _say_stopped(subcommand: list[str], signo: signal.Signals) -> None:
    if subcommand == ["serve"]:  # a server's normal end is a signal, not an error
        return
    with contextlib.suppress(OSError):  # a terminal that closed (SIGHUP) takes no more; the exit code still tells
        typer.echo(f"error: stopped by {signo.name}; the files being written were dropped and earlier outputs are "
                   "unchanged; run the same command again to finish", err=True)


def _terminate(signo: int, _frame: object) -> None:
    # A stop signal unwinds like Ctrl-C: writers drop their temp files and no file appears half-written.
    raise _Stopped(signo)


def main() -> None:
    """Entry point of the `coworkenv` script."""
    escape_last_resort()  # a module's warning naming a path: one line, no escape code reaching the terminal
    raise_open_files_limit()  # a soft `ulimit -n` below the hard one: many LLM requests in flight would pass it
    for signo in unhandled_stop_signals():  # a stop request, the terminal going away, a limit reached
        signal.signal(signo, _terminate)
    with watching_standard_output():
        app()


__all__ = ["PLUGIN_GROUP", "SYSTEM_ERROR", "TERMINATED", "app", "main"]
