"""`coworkenv rollout ENVS_DIR --teacher oracle|URL [--model NAME] --k K --out DIR`: teacher runs in envs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import orjson
import pyarrow.parquet as pq
import typer

from coworkenv.llm import backend_from_config
from coworkenv.loading import SpecError, load_spec
from coworkenv.rollout import LLMTeacher, OracleTeacher, Teacher, TrajectoryRecord, rollout_specs, write_trajectories
from coworkenv.spec import EnvSpec

USAGE_ERROR = 2
SPEC_COLUMN = "spec_json"


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(USAGE_ERROR)


def read_specs(envs_dir: Path) -> list[EnvSpec]:
    """Every spec in the `spec_json` column of the Parquet files under `envs_dir` (sorted by path).

    Files without that column (e.g. `rejected.parquet` beside the accepted envs of `coworkenv validate`) are
    skipped; a folder where no file has it is an error.
    """
    if not envs_dir.exists():
        raise FileNotFoundError(f"{envs_dir}: no such folder; pass the folder of validated env Parquet files")
    files = [envs_dir] if envs_dir.is_file() else sorted(envs_dir.rglob("*.parquet"))
    specs = []
    for path in files:
        if SPEC_COLUMN not in pq.read_schema(path).names:
            continue
        for row, text in enumerate(pq.read_table(path, columns=[SPEC_COLUMN]).column(SPEC_COLUMN).to_pylist()):
            specs.append(load_spec(text, source=f"{path} row {row}"))
    if not specs:
        raise FileNotFoundError(f"{envs_dir}: no specs found (no .parquet files with a {SPEC_COLUMN!r} column)")
    return specs


def rollout_summary(records: list[TrajectoryRecord], path: Path) -> dict[str, object]:
    """Episodes, passed, mean score, stop reasons and where the trajectories went."""
    reasons: dict[str, int] = {}
    for r in records:
        reasons[r.stop_reason] = reasons.get(r.stop_reason, 0) + 1
    return {
        "episodes": len(records),
        "passed": sum(r.passed for r in records),
        "mean_score": round(sum(r.score for r in records) / len(records), 4) if records else 0.0,
        "envs": len({r.env_id for r in records}),
        "stop_reasons": reasons,
        "agent_tokens": sum(r.tokens.agent_prompt + r.tokens.agent_completion for r in records),
        "path": str(path),
    }


def rollout_command(
    envs_dir: Annotated[Path, typer.Argument(help="Folder of env Parquet files with a spec_json column.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the trajectories Parquet file.")],
    teacher: Annotated[str, typer.Option("--teacher", help="'oracle' or the URL of an OpenAI-compatible server.")] = "oracle",
    model: Annotated[str | None, typer.Option("--model", help="Model name for a URL teacher.")] = None,
    k: Annotated[int, typer.Option("--k", min=1, help="Episodes per env (oracle: differently phrased).")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Base seed (sample i uses seed + i).")] = 0,
    temperature: Annotated[float, typer.Option("--temperature", help="LLM sampling temperature.")] = 0.7,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="LLM max tokens per reply.")] = 1024,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Assistant messages per episode.")] = 40,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="LLM requests in flight.")] = 8,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Run a teacher in every env of ENVS_DIR and write its trajectories to OUT."""
    try:
        specs = read_specs(envs_dir)
    except (FileNotFoundError, ValueError, SpecError) as exc:
        _fail(str(exc))
    runner: Teacher
    if teacher == "oracle":
        runner = OracleTeacher(seed, k=k)
    elif teacher.startswith(("http://", "https://")):
        try:
            backend = backend_from_config(teacher, model, max_concurrency=concurrency)
        except ValueError as exc:
            _fail(str(exc))
        runner = LLMTeacher(backend, k, {"temperature": temperature, "max_tokens": max_tokens, "seed": seed},
                            max_steps=max_steps)
    else:
        _fail(f"unknown teacher {teacher!r}: use 'oracle' or an http(s):// URL of an OpenAI-compatible server")

    def progress(done: int, total: int) -> None:
        if not as_json and (done == total or done % 100 == 0):
            typer.echo(f"  {done}/{total} envs", err=True)

    records = rollout_specs(specs, runner, progress)
    path = write_trajectories(records, out)
    summary = rollout_summary(records, path)
    if as_json:
        typer.echo(orjson.dumps(summary, option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(f"{summary['episodes']} episodes in {summary['envs']} envs: {summary['passed']} passed, "
               f"mean score {summary['mean_score']:.3f}")
    typer.echo(f"trajectories: {path}")
