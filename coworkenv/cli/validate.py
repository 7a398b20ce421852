"""`coworkenv validate DIR --out DIR2`: run the gates and the repair loop over spec Parquet files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import typer

from coworkenv.atomic import atomic_write, atomic_write_bytes
from coworkenv.llm import NoLLMBackend, backend_from_config
from coworkenv.validate import (
    DEFAULT_MAX_ROUNDS,
    Candidate,
    LLMSpecGenerator,
    accepted_table,
    rejected_table,
    validate_and_repair,
)

USAGE_ERROR = 2
SPEC_COLUMN = "spec_json"


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(USAGE_ERROR)


def read_candidates(spec_dir: Path) -> list[Candidate]:
    """Candidates from every Parquet file under `spec_dir` (sorted), as `coworkenv.synth.write_specs_parquet`
    writes them: column `spec_json`, optional `capability`, `source` (or `generator`), `tokens` and `origin`;
    the capability defaults to the one in the spec JSON."""
    # Hidden files are writers' temporaries (atomic writes rename them when complete).
    files = sorted(p for p in spec_dir.rglob("*.parquet") if p.is_file() and not p.name.startswith("."))
    if not files:
        _fail(f"no .parquet files under {spec_dir}; write specs with `coworkenv synth --out {spec_dir}` first")
    out: list[Candidate] = []
    for path in files:
        try:
            table = pq.read_table(path)
        except (OSError, pa.ArrowException) as exc:
            _fail(f"cannot read {path}: {exc}")
        if SPEC_COLUMN not in table.column_names:
            _fail(f"{path} has no {SPEC_COLUMN!r} column (columns: {', '.join(table.column_names)})")
        for i, row in enumerate(table.to_pylist()):
            text = row[SPEC_COLUMN] or ""
            out.append(Candidate(
                capability=row.get("capability") or _capability_of(text),
                payload=text,
                source=row.get("source") or row.get("generator") or "procedural",
                tokens=int(row.get("tokens") or 0),
                origin=row.get("origin") or f"{path.relative_to(spec_dir)}#{i}",
            ))
    return out


def _capability_of(text: str) -> str:
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return "unknown"
    value = data.get("capability") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else "unknown"


def validate_command(
    spec_dir: Annotated[Path, typer.Argument(help="Folder of spec Parquet files (a spec_json column).",
                                             exists=True, file_okay=False, dir_okay=True)],
    out: Annotated[Path, typer.Option("--out", help="Folder for accepted.parquet, rejected.parquet, funnel.json.")],
    rounds: Annotated[int, typer.Option("--rounds", min=0, help="Repair rounds per failing spec.")] = (
        DEFAULT_MAX_ROUNDS),
    llm: Annotated[str | None, typer.Option(
        "--llm", help="OpenAI-compatible URL that repairs failing specs (default $COWORKENV_LLM_URL; none: no repair).",
    )] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name (default $COWORKENV_LLM_MODEL).")] = None,
    cache_dir: Annotated[Path | None, typer.Option(help="LLM response cache (default OUT/llm-cache).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the funnel as JSON.")] = False,
) -> None:
    """Validate specs (all ten gates), repair failures with an LLM if one is configured, write the results."""
    candidates = read_candidates(spec_dir)
    out.mkdir(parents=True, exist_ok=True)
    try:
        backend = backend_from_config(llm, model, cache_dir=cache_dir or out / "llm-cache")
    except ValueError as exc:
        _fail(str(exc))
    reviser = None if isinstance(backend, NoLLMBackend) else LLMSpecGenerator(backend)
    run = validate_and_repair(candidates, reviser, max_rounds=rounds)
    atomic_write(out / "accepted.parquet", lambda f: pq.write_table(accepted_table(run), f))
    atomic_write(out / "rejected.parquet", lambda f: pq.write_table(rejected_table(run), f))
    funnel = run.funnel.as_dict()
    funnel_json = orjson.dumps(funnel, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    atomic_write_bytes(out / "funnel.json", funnel_json)
    if as_json:
        typer.echo(funnel_json.decode())
    else:
        typer.echo(render_funnel(funnel))
        typer.echo(f"wrote {out / 'accepted.parquet'}, {out / 'rejected.parquet'}, {out / 'funnel.json'}")


def render_funnel(funnel: dict[str, Any]) -> str:
    """A few lines: stage counts, acceptance, mutation score, rejections by gate, repair rounds, cost."""
    stages = " -> ".join(f"{name} {funnel[name]}" for name in
                         ("generated", "schema_valid", "coherent", "solvable", "sound", "accepted"))
    score = funnel["mutation_score"]
    lines = [
        stages,
        f"acceptance rate {funnel['acceptance_rate']:.1%}, mean mutation score "
        f"{'-' if score is None else f'{score:.3f}'}",
    ]
    if funnel["rejected_by_gate"]:
        lines.append("rejected by gate: " + ", ".join(f"{g} {n}" for g, n in funnel["rejected_by_gate"].items()))
    if funnel["repair_rounds"]:
        lines.append("repair rounds of accepted: " + ", ".join(f"{r}: {n}" for r, n in funnel["repair_rounds"].items()))
    if funnel["llm_failures"]:
        lines.append("LLM failures: " + ", ".join(f"{k} {n}" for k, n in funnel["llm_failures"].items()))
    if funnel["tokens_total"]:
        lines.append(f"tokens {funnel['tokens_total']} ({funnel['tokens_per_accepted']} per accepted spec)")
    return "\n".join(lines)
