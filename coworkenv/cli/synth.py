"""`coworkenv taxonomy` and `coworkenv synth`: list capabilities, and write generated specs as Parquet."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import typer

from coworkenv.spec import EnvSpec
from coworkenv.synth import (
    GENERATORS,
    Capability,
    GeneratorError,
    TaxonomyError,
    capability_fingerprint,
    diversity_report,
    generate_specs,
    load_taxonomy,
    write_specs_parquet,
)
from coworkenv.synth.taxonomy import Taxonomy

USAGE_ERROR = 2
TaxonomyOpt = Annotated[Path, typer.Option("--taxonomy", "--path", help="Taxonomy folder (one YAML file per area).")]


def _fail(message: str, code: int = USAGE_ERROR) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _taxonomy(path: Path) -> Taxonomy:
    try:
        return load_taxonomy(path)
    except TaxonomyError as exc:
        _fail(str(exc))


def _row(cap: Capability, source: Path) -> dict[str, Any]:
    return {
        **cap.model_dump(mode="json"),
        "fingerprint": capability_fingerprint(cap),
        "procedural": cap.generator_id in GENERATORS,
        "source": str(source),
    }


def taxonomy_command(
    path: TaxonomyOpt = Path("taxonomy"),
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: one object per capability.")] = False,
) -> None:
    """List the capabilities of the taxonomy, by area."""
    tax = _taxonomy(path)
    rows = [_row(cap, tax.source_files[cap.id]) for cap in tax]
    if as_json:
        typer.echo(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
        return
    for area, ids in tax.areas.items():
        typer.echo(f"{area}:")
        for cap_id in ids:
            cap = tax.capabilities[cap_id]
            turns = "multi-turn" if cap.multi_turn else "single-turn"
            change = f", {cap.state_change} change" if cap.state_change != "none" else ""
            lo, hi = cap.difficulty
            typer.echo(f"  {cap.id:32s} d{lo}-{hi}  {turns}{change}  quota {cap.quota}  apps {','.join(cap.apps)}")
    typer.echo(f"{len(tax)} capabilities in {len(tax.areas)} areas ({path})")


def synth_command(
    out: Annotated[Path, typer.Option("--out", help="Output folder: writes specs-<capability>.parquet there.")],
    capability: Annotated[
        list[str] | None, typer.Option("--capability", "-c", help="Capability id (repeatable); default: all.")
    ] = None,
    n: Annotated[int | None, typer.Option("--n", min=1, help="Specs per capability; default: its quota.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Spec i of a capability uses seed + i.")] = 0,
    taxonomy: TaxonomyOpt = Path("taxonomy"),
    llm: Annotated[
        str | None, typer.Option("--llm", help="OpenAI-compatible base URL: synthesize with an LLM.")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name for --llm.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary with diversity figures.")] = False,
) -> None:
    """Generate environment specs for capabilities and write them as Parquet (procedural, or with --llm)."""
    tax = _taxonomy(taxonomy)
    ids = capability or list(tax.capabilities)
    unknown = [c for c in ids if c not in tax.capabilities]
    if unknown:
        _fail(f"unknown capability {', '.join(unknown)}; see `coworkenv taxonomy --path {taxonomy}`")
    if (llm is None) != (model is None):
        _fail("--llm and --model go together: --llm http://host:8000/v1 --model NAME")
    summary = []
    for cap_id in ids:
        cap = tax.capabilities[cap_id]
        count = n if n is not None else cap.quota
        started = time.perf_counter()
        specs = _llm_specs(cap, count, seed, llm, model) if llm else _procedural_specs(cap, count, seed)
        path = write_specs_parquet(specs, out / f"specs-{cap.id}.parquet")
        took = time.perf_counter() - started
        report = diversity_report(specs)
        summary.append(
            {
                "capability": cap.id,
                "path": str(path),
                "specs": len(specs),
                "seconds": round(took, 3),
                "fingerprint": capability_fingerprint(cap),
                "diversity": report,
            }
        )
        if not as_json:
            typer.echo(
                f"wrote {len(specs)} specs to {path} ({took:.2f}s; distinct content "
                f"{report['distinct_content_fraction']:.0%}, reference sequences "
                f"{report['distinct_reference_sequences']})"
            )
    if as_json:
        typer.echo(orjson.dumps(summary, option=orjson.OPT_INDENT_2).decode())


def _procedural_specs(cap: Capability, n: int, seed: int) -> list[EnvSpec]:
    try:
        return generate_specs(cap, n, seed)
    except GeneratorError as exc:
        _fail(str(exc))


def _llm_specs(cap: Capability, n: int, seed: int, url: str | None, model: str | None) -> list[EnvSpec]:
    """LLM-written specs that passed the gates (the LLM repairs failures, at most 3 rounds)."""
    # The LLM generator lives with the validation loop, which it needs to repair specs; load it only here.
    try:
        from coworkenv.llm import backend_from_config
        from coworkenv.validate import LLMSpecGenerator, validate_and_repair
    except ImportError as exc:
        _fail(
            f"LLM synthesis needs coworkenv.validate.LLMSpecGenerator, which is not available ({exc}); "
            "run without --llm for procedural specs"
        )
    generator = LLMSpecGenerator(backend_from_config(url, model))
    run = validate_and_repair(generator.generate(cap, n, seed), reviser=generator)
    funnel = run.funnel.as_dict()
    typer.echo(
        f"{cap.id}: {len(run.accepted)} of {n} LLM specs accepted "
        f"(rejected by gate: {funnel.get('rejected_by_gate', {})})",
        err=True,
    )
    return [a.spec for a in run.accepted]


def register(app: typer.Typer) -> None:
    """Add `taxonomy` and `synth` to the `coworkenv` app."""
    app.command("taxonomy")(taxonomy_command)
    app.command("synth")(synth_command)
