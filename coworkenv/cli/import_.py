"""`coworkenv import claw-eval PATH --out DIR`: benchmark tasks as specs, with a report of what was left out."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coworkenv.commands import error_line
from coworkenv.importers import ImportProblem, import_checkout

app = typer.Typer(help="Import tasks from other benchmarks as environment specs.", no_args_is_help=True)
USAGE_ERROR = 2


@app.command("claw-eval")
def claw_eval_command(
    path: Annotated[Path, typer.Argument(help="A local checkout in Claw-Eval's layout (tasks/<ID>/task.yaml).")],
    out: Annotated[Path, typer.Option(help="Folder for the specs and import_report.json.")],
    error_rate: Annotated[float | None, typer.Option(
        min=0.0, max=1.0, help="Claw-Eval's ERROR_RATE for services whose task.yaml sets none (a fault plan).")]
    = None,
) -> None:
    """Import Claw-Eval tasks: fixtures -> world, tools -> declared tools, deterministic checks -> checks."""
    if not path.is_dir():
        typer.echo(error_line(f"{path} is not a folder; pass a Claw-Eval checkout or its tasks folder"), err=True)
        raise typer.Exit(USAGE_ERROR)
    try:
        reports = import_checkout(path, out, error_rate)
    except ImportProblem as exc:
        typer.echo(error_line(f"{exc}"), err=True)
        raise typer.Exit(USAGE_ERROR) from None
    for r in reports:
        left = "; ".join(f"{x['what']} ({x['why']})" for x in r.left_out)
        if not left and r.status == "skipped" and r.notes:  # the task could not be read at all: say why
            typer.echo(f"{r.task_id}\t{r.status}\tcannot import: {'; '.join(r.notes)}")
            continue
        typer.echo(f"{r.task_id}\t{r.status}\tleft out: {left or '-'}")
    counts = {s: sum(r.status == s for r in reports) for s in ("full", "partial", "skipped")}
    typer.echo(f"{len(reports)} task(s): {counts['full']} full, {counts['partial']} partial, "
               f"{counts['skipped']} skipped; report: {out / 'import_report.json'}")
