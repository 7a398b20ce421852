"""`coworkenv taxonomy` and `coworkenv synth`: list capabilities, and write generated specs as Parquet."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer

from coworkenv.cli._limits import SEED_MAX, SEED_MIN
from coworkenv.commands import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    INFRASTRUCTURE_ERROR,
    LLMOption,
    ModelOption,
    RetriesOption,
    TimeoutOption,
    check_out_dir,
    connect,
    fail,
    say,
)
from coworkenv.escaping import escape_hidden
from coworkenv.limits import MAX_QUOTA

if TYPE_CHECKING:
    from coworkenv.llm import LLMBackend
    from coworkenv.spec import EnvSpec
    from coworkenv.synth import Capability
    from coworkenv.synth.taxonomy import Taxonomy
    from coworkenv.validate import Candidate

# The generators, the gates and the stores are imported by the functions that run them: `coworkenv --help` and a
# usage error must not wait for them.

TaxonomyOpt = Annotated[Path, typer.Option("--taxonomy", "--path", help="Taxonomy folder (one YAML file per area).")]


def _taxonomy(path: Path) -> Taxonomy:
    from coworkenv.synth import TaxonomyError, load_taxonomy

    try:
        return load_taxonomy(path)
    except TaxonomyError as exc:
        fail(str(exc))


def _row(cap: Capability, source: Path) -> dict[str, Any]:
    from coworkenv.synth import GENERATORS, capability_fingerprint

    return {
        **cap.model_dump(mode="json"),
        "fingerprint": capability_fingerprint(cap),
        "procedural": cap.generator_id in GENERATORS,
        # A name that is not UTF-8 (the taxonomy reads such a file) as error lines write it: JSON takes no such bytes.
        "source": escape_hidden(str(source), frozenset(), undecodable_bytes=True),
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
    say(f"{len(tax)} capabilities in {len(tax.areas)} areas ({path})")


def synth_command(
    out: Annotated[Path, typer.Option("--out", help="Output folder: writes specs-<capability>.parquet there.")],
    capability: Annotated[
        list[str] | None, typer.Option("--capability", "-c", help="Capability id (repeatable); default: all.")
    ] = None,
    n: Annotated[int | None, typer.Option("--n", min=1, max=MAX_QUOTA, help="Specs per capability; default: its quota.")] = None,
    seed: Annotated[int, typer.Option("--seed", min=SEED_MIN, max=SEED_MAX, help="Spec i of a capability uses seed + i.")] = 0,
    taxonomy: TaxonomyOpt = Path("taxonomy"),
    llm: LLMOption = None,
    model: ModelOption = None,
    llm_timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    llm_retries: RetriesOption = DEFAULT_RETRIES,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary with diversity figures.")] = False,
    add: Annotated[bool, typer.Option("--add", help="Keep specs in OUT of capabilities the taxonomy does not define "
                                                    "(another taxonomy's, kept on purpose); without it such an OUT "
                                                    "is refused.")] = False,
) -> None:
    """Generate environment specs for capabilities and write them as Parquet (procedural, or with --llm)."""
    from coworkenv.spec import EnvSpec
    from coworkenv.store.stages import write_specs
    from coworkenv.synth import capability_fingerprint, diversity_report
    from coworkenv.validate import procedural_candidates

    check_out_dir(out)
    tax = _taxonomy(taxonomy)
    ids = capability or list(tax.capabilities)
    unknown = [c for c in ids if c not in tax.capabilities]
    if unknown:
        fail(f"unknown capability {', '.join(unknown)}; see `coworkenv taxonomy --path {taxonomy}`")
    stale = None if add else undefined_capabilities_problem(out, tax, taxonomy)
    if stale is not None:
        fail(stale)
    if (llm is None) != (model is None):
        fail("--llm and --model go together: --llm http://host:8000/v1 --model NAME")
    backend = connect(llm, model, timeout_s=llm_timeout, retries=llm_retries) if llm else None
    summary = []
    for cap_id in ids:
        cap = tax.capabilities[cap_id]
        count = n if n is not None else cap.quota
        started = time.perf_counter()
        funnel: dict[str, Any] | None = None
        if backend is not None:
            candidates, funnel = _llm_specs(cap, count, seed, backend, out)
        else:
            candidates = procedural_candidates(_procedural_specs(cap, count, seed))
        specs = [c.payload for c in candidates if isinstance(c.payload, EnvSpec)]
        path = write_specs(candidates, out / f"specs-{cap.id}.parquet")
        took = time.perf_counter() - started
        report = diversity_report(specs)
        row: dict[str, Any] = {
            "capability": cap.id,
            "path": str(path),
            "specs": len(specs),
            "seconds": round(took, 3),
            "fingerprint": capability_fingerprint(cap),
            "diversity": report,
        }
        if funnel is not None:
            row["funnel"] = funnel
        summary.append(row)
        if not as_json:
            say(
                f"wrote {len(specs)} specs to {path} ({took:.2f}s; distinct content "
                f"{report['distinct_content_fraction']:.0%}, reference sequences "
                f"{report['distinct_reference_sequences']})"
            )
    if as_json:
        # Histograms (difficulty, turns) have integer keys.
        typer.echo(orjson.dumps(summary, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode())


SPEC_FILE_PREFIX, SPEC_FILE_SUFFIX = "specs-", ".parquet"


def undefined_capabilities_problem(out: Path, tax: Taxonomy, taxonomy: Path) -> str | None:
    """Why `out` cannot take this run's spec files as it is, or None: it holds `specs-<capability>.parquet` files
    (what synth writes) of capabilities the taxonomy does not define (removed or renamed since an earlier run, or
    another taxonomy's). Synth writes one file per capability and leaves the others, so such a file would stay, and
    every reader of the folder (`validate OUT`, then rollout, curate, training) would take its specs with this run's:
    a removed capability trained on, a renamed one's specs twice under two names. The pipeline retires such a
    capability's partition; here the user decides (the file may be wanted), so nothing is removed."""
    if not out.is_dir():
        return None
    stale = sorted(
        (p.name, p.name[len(SPEC_FILE_PREFIX):-len(SPEC_FILE_SUFFIX)]) for p in out.iterdir()
        if p.name.startswith(SPEC_FILE_PREFIX) and p.name.endswith(SPEC_FILE_SUFFIX)
        and p.name[len(SPEC_FILE_PREFIX):-len(SPEC_FILE_SUFFIX)] not in tax.capabilities
    )
    if not stale:
        return None
    shown = ", ".join(f"{name} ({cap})" for name, cap in stale[:5]) + (f" and {len(stale) - 5} more" if len(stale) > 5 else "")
    return (f"--out {out} holds specs of {len(stale)} capabilit{'y' if len(stale) == 1 else 'ies'} that the taxonomy "
            f"{taxonomy} does not define: {shown} (removed or renamed since, or another taxonomy's); a reader of the "
            f"folder (validate, rollout) would take them with this run's; remove "
            f"{'it' if len(stale) == 1 else 'them'}, write to a new folder (e.g. --out {out.parent / (out.name + '-2')}), "
            f"or pass --add to keep them on purpose")


def _procedural_specs(cap: Capability, n: int, seed: int) -> list[EnvSpec]:
    from coworkenv.synth import GeneratorError, generate_specs

    try:
        return generate_specs(cap, n, seed)
    except GeneratorError as exc:
        fail(str(exc))


def _llm_specs(cap: Capability, n: int, seed: int, backend: LLMBackend,
               out: Path) -> tuple[list[Candidate], dict[str, Any]]:
    """LLM-written specs that passed the gates (the LLM repairs failures, at most 3 rounds), and the funnel.

    Exits 3 when the server failed every generation request (nothing written: an empty result would look like a
    spec problem), or every repair request (after writing the specs that passed without repair).
    """
    from coworkenv.llm import is_infrastructure_error, server_label
    from coworkenv.store.stages import write_specs
    from coworkenv.synth.llm_generator import LLMSpecGenerator
    from coworkenv.validate import accepted_candidates, validate_and_repair

    generator = LLMSpecGenerator(backend)
    requests_before = backend.stats.requests
    run = validate_and_repair(generator.generate(cap, n, seed), reviser=generator)
    funnel = run.funnel.as_dict(per_capability=False)
    typer.echo(f"{cap.id}: {funnel_line(funnel)}", err=True)
    typer.echo(f"{cap.id}: LLM {backend.stats.summary()}", err=True)
    lost = sum(k for kind, k in funnel["generation_failures"].items() if is_infrastructure_error(kind))
    if lost and lost == n:
        kinds = ", ".join(f"{kind} {k}" for kind, k in funnel["generation_failures"].items())
        fail(f"the LLM server {server_label(backend)} answered none of the {n} generation requests for {cap.id} "
             f"({kinds}; {backend.stats.retries} retries): nothing written; check the server, or raise "
             "--llm-timeout / --llm-retries", INFRASTRUCTURE_ERROR)
    repairs = backend.stats.requests - requests_before - n
    repairs_lost = sum(k for kind, k in funnel["infrastructure_failures"].items()) - lost
    if repairs and repairs_lost == repairs:
        # The accepted specs are written first: they passed every gate, only the repairs are missing.
        path = write_specs(accepted_candidates(run), out / f"specs-{cap.id}.parquet")
        fail(f"the LLM server {server_label(backend)} answered none of the {repairs} repair requests for {cap.id} "
             f"({backend.stats.retries} retries so far); the {len(run.accepted)} specs accepted without repair are "
             f"in {path}; check the server, or raise --llm-timeout / --llm-retries", INFRASTRUCTURE_ERROR)
    if lost:
        typer.echo(f"warning: the LLM server {server_label(backend)} failed {lost} of {n} generation requests for "
                   f"{cap.id} after their retries; counted in the funnel as generation_failures", err=True)
    return accepted_candidates(run), funnel


def funnel_line(funnel: dict[str, Any]) -> str:
    """One line of where requested specs went: accepted, lost to the server, cut off, rejected by gate."""
    from coworkenv.llm import is_infrastructure_error

    def kinds(counts: dict[str, int]) -> str:
        return ", ".join(f"{k} {n}" for k, n in counts.items()) or "none"

    infra = {k: n for k, n in funnel["generation_failures"].items() if is_infrastructure_error(k)}
    model = {k: n for k, n in funnel["generation_failures"].items() if not is_infrastructure_error(k)}
    return (f"{funnel['accepted']} of {funnel['requested']} LLM specs accepted; generation lost to server errors: "
            f"{kinds(infra)}; model failures: {kinds(model)}; rejected by gate: {kinds(funnel['rejected_by_gate'])}; "
            f"failed repair calls: {sum(funnel['llm_failures'].values()) - sum(funnel['generation_failures'].values())}")


def register(app: typer.Typer) -> None:
    """Add `taxonomy` and `synth` to the `coworkenv` app."""
    app.command("taxonomy")(taxonomy_command)
    app.command("synth")(synth_command)
