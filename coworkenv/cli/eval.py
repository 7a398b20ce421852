"""`coworkenv eval --model PATH_OR_URL --envs DIR [--k K] [--json] [--out DIR]`: a model on held-out envs.

PATH is a local checkpoint (run with transformers); URL an OpenAI-compatible endpoint (e.g. `vllm serve`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import orjson
import typer

from coworkenv.llm import MODEL_ENV_VAR, LLMBackend, backend_from_config

if TYPE_CHECKING:
    from trainers.evaluate import EvalReport

USAGE_ERROR = 2


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(USAGE_ERROR)


def _backend(model: str, served_model: str | None, concurrency: int) -> LLMBackend:
    if model.startswith(("http://", "https://")):
        served_model = served_model or os.environ.get(MODEL_ENV_VAR)
        if not served_model:
            _fail("--served-model NAME is needed with a URL: the model name the server serves (`vllm serve PATH` "
                  f"serves it as PATH unless --served-model-name is given); or set ${MODEL_ENV_VAR}")
        try:
            return backend_from_config(model, served_model, max_concurrency=concurrency)
        except ValueError as exc:
            _fail(str(exc))
    from trainers.local_backend import LocalTransformersBackend

    try:
        return LocalTransformersBackend(Path(model))
    except (FileNotFoundError, ValueError, OSError) as exc:
        _fail(str(exc))


def _read_report(spec: str) -> tuple[str, EvalReport]:
    """LABEL=PATH: a report JSON (`--json` output) or an eval_report.json (its report of that label, or its only one)."""
    from trainers.evaluate import EvalReport

    label, sep, path = spec.partition("=")
    if not sep or not label or not path:
        _fail(f"--compare {spec!r}: use LABEL=PATH, e.g. base=runs/base/eval_report.json")
    try:
        data = orjson.loads(Path(path).read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        _fail(f"--compare {spec!r}: cannot read {path}: {exc}")
    if "reports" in data:
        reports = data["reports"]
        chosen = reports.get(label) or (next(iter(reports.values())) if len(reports) == 1 else None)
        if chosen is None:
            _fail(f"--compare {spec!r}: {path} holds reports {sorted(reports)}; name one of them as LABEL")
        data = chosen
    try:
        return label, EvalReport.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        _fail(f"--compare {spec!r}: {path} is not an evaluation report ({exc})")


def eval_command(
    model: Annotated[str, typer.Option("--model", help="Local checkpoint folder, or URL of an OpenAI-compatible "
                                                       "server (e.g. http://127.0.0.1:8000/v1).")],
    envs: Annotated[Path, typer.Option("--envs", help="Folder of env Parquet files with a spec_json column.")],
    k: Annotated[int, typer.Option("--k", min=1, help="Samples per env (pass^k needs k > 1).")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Write eval_report.md/.json/.png and the runs here.")] = None,
    served_model: Annotated[str | None, typer.Option("--served-model", help="Model name at the URL.")] = None,
    label: Annotated[str | None, typer.Option("--label", help="Name of this model in the report (default: the "
                                                                "backend's name).")] = None,
    compare: Annotated[list[str] | None, typer.Option("--compare", help="LABEL=REPORT_JSON to show side by side "
                                                                        "(repeatable; e.g. base=base/eval_report.json).")] = None,
    temperature: Annotated[float | None, typer.Option(help="Default: 0 for k=1, 0.7 for k>1.")] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1, help="Tokens per assistant message.")] = 512,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="Assistant messages per episode.")] = 20,
    seed: Annotated[int, typer.Option("--seed", help="Base seed (sample i uses seed + i).")] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Episodes in flight.")] = 8,
) -> None:
    """Evaluate a model on held-out envs: pass@1, pass^k and mean score per capability and single/multi-turn."""
    from coworkenv.cli.rollout import read_specs
    from coworkenv.loading import SpecError
    from coworkenv.rollout import TrajectoryRecord, write_trajectories
    from trainers.eval_report import render_markdown, write_eval_report
    from trainers.evaluate import compare_reports, evaluate

    try:
        specs = read_specs(envs)
    except (FileNotFoundError, ValueError, SpecError) as exc:
        _fail(str(exc))
    others = dict(_read_report(item) for item in compare or [])
    backend = _backend(model, served_model, concurrency)
    records: list[TrajectoryRecord] = []
    report = evaluate(backend, specs, k, temperature=temperature, max_tokens=max_tokens, max_steps=max_steps,
                      seed=seed, concurrency=concurrency, records=records)
    try:
        shown = compare_reports({**others, label or report.model: report})
    except ValueError as exc:
        _fail(str(exc))
    if out is not None:
        files = write_eval_report(out, shown)
        write_trajectories(records, out / "runs")
        if not as_json:
            typer.echo(f"report: {files.markdown}  plot: {files.plot}", err=True)
    if as_json:
        typer.echo(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(render_markdown(shown))
