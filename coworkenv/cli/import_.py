"""`coworkenv import claw-eval PATH --out DIR`: benchmark tasks as specs, with a report of what was left out."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, cast

import typer

from coworkenv.commands import error_line, say

app = typer.Typer(help="Import tasks from other benchmarks as environment specs.", no_args_is_help=True)
USAGE_ERROR = 2


@app.command("claw-eval")
def claw_eval_command(
    path: Annotated[Path, typer.Argument(help="A local checkout in Claw-Eval's layout (tasks/<ID>/task.yaml).")],
    out: Annotated[Path, typer.Option(help="Folder for the specs and import_report.json.")],
    error_rate: Annotated[float | None, typer.Option(
        min=0.0, max=1.0, help="Claw-Eval's ERROR_RATE for services whose task.yaml sets none (a fault plan).")]
    = None,
    judge: Annotated[str | None, typer.Option(
        help="The LLM judge that will score (an OpenAI-compatible server URL, or vllm-offline; 'none': no judge; "
             "default $COWORKENV_JUDGE_URL): graders that ask a judge are then run, status 'full (judge)'. "
             "Scoring them needs the judge configured ($COWORKENV_JUDGE_URL and $COWORKENV_JUDGE_MODEL).")] = None,
    judge_model: Annotated[str | None, typer.Option(
        help="The judge's model name (default $COWORKENV_JUDGE_MODEL).")] = None,
    system_prompt: Annotated[str, typer.Option(
        help="What each spec's context (the agent's system text) carries: 'claw-eval', the system prompt Claw-Eval's "
             "runner gives the task's agent (persona, tools and schemas, rules on tool calls and replies); 'env', "
             "one line (the env's own system text alone).")] = "claw-eval",
) -> None:
    """Import Claw-Eval tasks: fixtures -> world, tools -> declared tools, deterministic checks -> checks."""
    from coworkenv.importers import ERROR, FULL_JUDGE, STATUSES, ImportProblem, import_checkout  # when the command runs
    from coworkenv.importers.claw_eval import SYSTEM_PROMPTS, SystemPrompt
    from coworkenv.llm import LLMError

    if not path.is_dir():
        typer.echo(error_line(f"{path} is not a folder; pass a Claw-Eval checkout or its tasks folder"), err=True)
        raise typer.Exit(USAGE_ERROR)
    if system_prompt not in SYSTEM_PROMPTS:
        typer.echo(error_line(f"--system-prompt: {system_prompt!r} is not one of {', '.join(SYSTEM_PROMPTS)}"),
                   err=True)
        raise typer.Exit(USAGE_ERROR)
    try:
        judged = _judge_configured(judge, judge_model)
    except (ValueError, LLMError) as exc:
        typer.echo(error_line(f"--judge: {exc}"), err=True)
        raise typer.Exit(USAGE_ERROR) from None
    try:
        removed: list[str] = []
        said: list[str] = []
        reports = import_checkout(path, out, error_rate, judge=judged, removed=removed, said=said,
                                  system_prompt=cast("SystemPrompt", system_prompt))  # checked above
    except ImportProblem as exc:
        typer.echo(error_line(f"{exc}"), err=True)
        raise typer.Exit(USAGE_ERROR) from None
    for line in said:
        typer.echo(f"warning: {line}", err=True)
    for r in reports:
        left = "; ".join(f"{x['what']} ({x['why']})" for x in r.left_out)
        shown = r.task_id if r.task_id.isprintable() else repr(r.task_id)  # a tab or line break would shift columns
        if not left and r.status == "skipped" and r.notes:  # the task could not be read at all: say why
            typer.echo(f"{shown}\t{r.status}\tcannot import: {'; '.join(r.notes)}")
            continue
        if r.status == ERROR:  # a service that would not start: an error there, no score here
            typer.echo(f"{shown}\t{r.status}\t{'; '.join(r.notes)}")
            continue
        typer.echo(f"{shown}\t{r.status}\tleft out: {left or '-'}")
    if removed:  # specs of an earlier import into OUT whose tasks this one did not import
        say(f"removed {len(removed)} spec(s) of the earlier import into {out} that this import did not "
                   f"write: {', '.join(removed)}")
    errored = [r for r in reports if r.status == ERROR]
    counts = ", ".join(f"{sum(r.status == s for r in reports)} {s}" for s in STATUSES
                       if (s != FULL_JUDGE or judged) and (s != ERROR or errored))  # a judged import: how many need its judge
    say(f"{len(reports)} task(s): {counts}; report: {out / 'import_report.json'}")
    if errored:  # Claw-Eval's `Errored: N/M`: no score stands for them; importing again tries them again
        typer.echo(error_line(f"{len(errored)} task(s) errored, a mock service would not start (no spec, no score): "
                              + ", ".join(r.task_id for r in errored) + "; fix them and import again"), err=True)


def _judge_configured(url: str | None, model: str | None) -> bool:
    """Whether a judge is configured (the option, else the environment); a server URL must answer."""
    from coworkenv.checks.judge import JUDGE_MODEL_ENV, JUDGE_URL_ENV, judge_backend
    from coworkenv.llm import probe_endpoint

    url = url if url is not None else os.environ.get(JUDGE_URL_ENV)
    backend = judge_backend(url, model if model is not None else os.environ.get(JUDGE_MODEL_ENV))
    if backend is not None and url and getattr(backend, "base_url", None):  # a server, not vllm-offline
        probe_endpoint(url.strip())  # a judge that is not there would fail every judged score later
    return backend is not None
