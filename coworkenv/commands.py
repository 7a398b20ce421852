"""What every `coworkenv` command shares, public for command plugins: exit codes, the `--llm URL --model NAME`
options, the up-front URL check and reachability probe, honest reports of requests the server failed, and the spec
argument (a spec JSON file, a folder of them, or Parquet: one reader for all).

Commands of other packages arrive through the `coworkenv.commands` entry point group (a `register(app)` callable):
`trainers` registers `train` and `eval` that way, so the library never imports the trainers.

Exit codes: 2 for input the caller must fix (a bad URL, a missing model name, a bad spec file), 3 for infrastructure
failures (nothing listens at the URL, or the server failed requests after their retries).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from coworkenv.escaping import LINE_BREAKING, escape_hidden
from coworkenv.folder_paths import folder_problem

if TYPE_CHECKING:
    from coworkenv.llm import LLMBackend
    from coworkenv.spec import EnvSpec
    from coworkenv.store.stages import SpecRow

# The LLM client, the spec model and the stores are imported by the functions that use them: every command module
# imports this one, and `coworkenv --help` or a usage error must not wait for them.

USAGE_ERROR = 2
INFRASTRUCTURE_ERROR = 3

LLMOption = Annotated[str | None, typer.Option(
    "--llm", help="URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 (default $COWORKENV_LLM_URL).")]
ModelOption = Annotated[str | None, typer.Option(
    "--model", help="Model name the --llm server serves (default $COWORKENV_LLM_MODEL).")]


def finite(value: float | None) -> float | None:
    """Typer callback of a float option: `nan` and `inf` (or a number past the float range, `1e400`) are refused. An
    infinite LLM timeout waited forever on a server that stopped answering, and a temperature of `inf` was sent to
    the server or sampled a local model from uniform noise."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number; give one")
    return value


TimeoutOption = Annotated[float, typer.Option(
    "--llm-timeout", min=0.001, callback=finite, help="Seconds to wait for one LLM answer before retrying.")]


def temperature_option(help_text: str) -> Any:
    """The `--temperature` option: 0 (greedy) and up, finite. A value below 0 was sent as written: a server refused
    it after the run started, and a local checkpoint sampled greedily at any value not above 0 while the report
    said the run was at that temperature."""
    return typer.Option("--temperature", callback=_temperature, help=help_text)


def _temperature(value: float | None) -> float | None:
    finite(value)
    if value is not None and value < 0:
        raise typer.BadParameter(f"{value} is below 0; give 0 (greedy) or more")
    return value


RetriesOption = Annotated[int, typer.Option("--llm-retries", min=0, help="Retries of a failed LLM request.")]
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_RETRIES = 4


def error_line(message: str) -> str:
    """`error: message` as one line: control characters, line separators and bytes that are not UTF-8 (from a
    file name, say) escaped.

    A newline in a path would split the message, and a terminal escape in one would reach the terminal.
    """
    return "error: " + escape_hidden(message, LINE_BREAKING, undecodable_bytes=True)


def say(line: str, *, err: bool = False) -> None:
    """Print `line`, one that names a path the user gave (`wrote N specs to OUT/...`), as one line: a folder may be
    named with a line break or a terminal escape (it is legal, and works), and printed raw it split the line or drove
    the terminal. Control characters are escaped as in `error_line`."""
    typer.echo(escape_hidden(line, LINE_BREAKING, undecodable_bytes=True), err=err)


def fail(message: str, code: int = USAGE_ERROR) -> NoReturn:
    """Print `error: message` on stderr (one line) and exit with `code` (no traceback)."""
    typer.echo(error_line(message), err=True)
    raise typer.Exit(code)


def deprecated(old: str, new: str) -> None:
    """Warn once on stderr that flag `old` is deprecated (accepted for one more release) in favour of `new`."""
    typer.echo(f"warning: {old} is deprecated and will be removed in the next release; use {new}", err=True)


def connect(
    url: str | None, model: str | None, *, cache_dir: Path | None = None, concurrency: int = 8,
    timeout_s: float = DEFAULT_TIMEOUT_S, retries: int = DEFAULT_RETRIES, probe: bool = True,
) -> LLMBackend:
    """The backend `--llm`/`--model` name; a bad URL exits 2, a server that does not answer the probe exits 3."""
    from coworkenv.llm import DEFAULT_PROBE_TIMEOUT_S, LLMError, backend_from_config

    try:
        backend = backend_from_config(url, model, cache_dir=cache_dir, max_concurrency=concurrency,
                                      max_retries=retries, timeout_s=timeout_s)
    except ValueError as exc:
        fail(str(exc))
    check = getattr(backend, "probe", None)
    if probe and callable(check):
        try:
            check(min(timeout_s, DEFAULT_PROBE_TIMEOUT_S))
        except LLMError as exc:
            fail(exc.message, INFRASTRUCTURE_ERROR)
    return backend


def report_requests(backend: LLMBackend, stage: str) -> None:
    """After a stage: one stderr line of request outcomes; exit 3 when the server failed every request.

    Some failed requests are only reported (the stage's own counts say what they cost); none answered means
    the stage's result measures the server, so it must not pass for a result.
    """
    from coworkenv.llm import NoLLMBackend, server_label

    if isinstance(backend, NoLLMBackend):
        return
    stats = backend.stats
    if not stats.requests:
        return
    typer.echo(f"{stage}: LLM {stats.summary()}", err=True)
    failed = stats.infrastructure_failures
    if failed and stats.answered == 0:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(stats.failures.items()))
        fail(f"the LLM server {server_label(backend)} answered none of the {stats.requests} {stage} requests "
             f"({kinds}; {stats.retries} retries): check the server, or raise --llm-timeout / --llm-retries",
             INFRASTRUCTURE_ERROR)
    if failed:
        typer.echo(f"warning: the LLM server {server_label(backend)} failed {failed} of {stats.requests} {stage} "
                   "requests after their retries; they are counted above and in the funnel", err=True)

SPECS_HELP = "A spec JSON file, a folder of them, or Parquet with a spec_json column (synth or validate output)."
SpecsArg = Annotated[Path, typer.Argument(help=SPECS_HELP)]


def specs_or_exit(path: Path) -> list[EnvSpec]:
    """The specs at `path`, parsed and checked; bad input exits 2 with one message naming the file and row."""
    from coworkenv.loading import SpecError
    from coworkenv.store.stages import SpecSourceError, read_specs

    try:
        return read_specs(path)
    except SpecSourceError as exc:
        fail(str(exc))
    except SpecError as exc:
        fail(exc.line)


def spec_rows_or_exit(path: Path) -> list[SpecRow]:
    """The stored specs at `path`, unparsed (for `validate`, whose gates parse them); bad input exits 2."""
    from coworkenv.store.stages import SpecSourceError, read_spec_rows

    try:
        return read_spec_rows(path)
    except SpecSourceError as exc:
        fail(str(exc))


@contextmanager
def _output_lock(out: Path, command: str) -> Iterator[None]:
    from coworkenv.atomic import folder_lock

    made = not os.path.lexists(out)
    try:
        with folder_lock(out, f"another {command} into {out} is running; waiting for it to end"):
            yield
    finally:
        if made:  # a run that wrote nothing (refused, its server gone) leaves no empty folder behind
            with suppress(OSError):
                out.rmdir()


def output_lock(out: Path | None, command: str) -> AbstractContextManager[None]:
    """Hold `out` (the folder a command writes, created if missing) from the command's checks of what the folder
    holds to its last write: a second run of a command into the folder (a second terminal, a script started twice)
    waits, saying so, and then meets the folder the first left, instead of passing the same checks on the folder as
    it was and mixing its files with the first's (a funnel over another run's table, two spec sets' trajectories,
    two models' episodes under one report). The lock is on the folder itself, through any link or spelling of it.
    None: the command writes no folder."""
    return nullcontext() if out is None else _output_lock(out, command)


def check_out_dir(out: Path, reads: Path | None = None, *, inside: bool = True, suffix: str = "out") -> None:
    """Exit 2 before any work when `--out` names a file (a pipe, a link that loops or points nowhere), or a folder
    under one, instead of a folder; or when it is the folder `reads` that the command reads (with `inside`, a folder
    inside it too, for a command whose reader would take its outputs as inputs). `suffix` names the folder suggested
    beside it."""
    problem = folder_problem(out)  # a file, a pipe or a link that loops or points nowhere, in its place or on the way
    if problem is not None:
        fail(f"--out {out}: {problem}; pass a folder (it is created when missing)")
    if reads is not None:
        problem = output_in_input(out, reads, inside=inside, suffix=suffix)
        if problem is not None:
            fail(problem)


def output_in_input(out: Path, reads: Path, *, inside: bool, suffix: str) -> str | None:
    """Why `out` cannot take this command's output when it reads the folder `reads`, or None.

    Written into its own input folder, a command's output became the next run's input: `validate S --out S` read
    its own `accepted.parquet` beside the specs at the next run (each spec twice: half "rejected as duplicate", and
    a `rollout S` then ran every env twice); `curate T --out T` and `rollout S --out S` left a folder the next stage
    refuses ("not a trajectories file ... write trajectories with `coworkenv rollout`"), for a user who had."""
    if not reads.is_dir():
        return None
    try:
        folder, target = reads.resolve(), out.resolve()
    except (OSError, RuntimeError):  # a looping link: the reader or the writer names it
        return None
    if target != folder and not (inside and target.is_relative_to(folder)):
        return None
    where = "is" if target == folder else "is inside"
    beside = folder.parent / f"{folder.name}-{suffix}"
    return (f"--out {out} {where} {reads}, the folder this command reads: the next run would read this run's output "
            f"as its input; write to a folder beside it, e.g. --out {beside}")
