"""`coworkenv validate SPECS --out DIR`: run the gates and the repair loop over specs (JSON, a folder, Parquet)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer

from coworkenv.atomic import atomic_write_bytes, files_together
from coworkenv.commands import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    ModelOption,
    RetriesOption,
    SpecsArg,
    TimeoutOption,
    check_out_dir,
    connect,
    fail,
    output_lock,
    report_requests,
    say,
    spec_rows_or_exit,
)
from coworkenv.limits import DEFAULT_REPAIR_ROUNDS, MAX_REPAIR_ROUNDS

if TYPE_CHECKING:
    from coworkenv.validate import Candidate
    from coworkenv.validate.policy import Policy

# The gates, the LLM client and the stores are imported when the command runs, not when `coworkenv` starts.


def read_candidates(path: Path) -> list[Candidate]:
    """Candidates from a spec JSON file, a folder of them, or Parquet (the specs or envs stage); bad input exits 2
    naming the file."""
    from coworkenv.validate import candidates_from_rows

    return candidates_from_rows(spec_rows_or_exit(path))


def validate_command(
    spec_dir: SpecsArg,
    out: Annotated[Path, typer.Option("--out", help="Folder for accepted.parquet, rejected.parquet, funnel.json.")],
    rounds: Annotated[int, typer.Option("--rounds", min=0, max=MAX_REPAIR_ROUNDS, help="Repair rounds per failing spec.")] = (
        DEFAULT_REPAIR_ROUNDS),
    llm: Annotated[str | None, typer.Option(
        "--llm", help="OpenAI-compatible URL that repairs failing specs (default $COWORKENV_LLM_URL; none: no repair).",
    )] = None,
    model: ModelOption = None,
    llm_timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    llm_retries: RetriesOption = DEFAULT_RETRIES,
    cache_dir: Annotated[Path | None, typer.Option(help="LLM response cache (default OUT/llm-cache).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the funnel as JSON.")] = False,
    policy: Annotated[str, typer.Option(
        "--policy", help="strict: reject every defect (training data); report: accept, listing every finding on the "
                         "env (imported benchmark tasks).")] = "strict",
    gates: Annotated[str | None, typer.Option(
        "--gates", help="Run only these gates (comma-separated, e.g. sandbox,references), for iterating on their "
                        "findings: prints each spec's errors and writes OUT/gates.json; no repair, no tables, nothing "
                        "accepted (only all ten gates accept a spec).")] = None,
    fail_fast: Annotated[bool, typer.Option(
        "--fail-fast", help="Stop each spec's validation at its first blocking error (any error under strict, a spec "
                            "that cannot run under report), leaving the rest of the gates and mutants unplayed: prints "
                            "what was found and writes OUT/gates.json, as --gates; no repair, nothing accepted.")] = False,
) -> None:
    """Validate specs (all ten gates), repair failures with an LLM if one is configured, write the results."""
    from coworkenv.llm import NoLLMBackend
    from coworkenv.store.stages import ENVS, REJECTED
    from coworkenv.synth.llm_generator import LLMSpecGenerator
    from coworkenv.validate import accepted_table, rejected_table, validate_and_repair
    from coworkenv.validate.policy import check_policy

    try:
        chosen = check_policy(policy)
    except ValueError as exc:
        fail(str(exc))
    if gates is not None or fail_fast:
        validate_gates(spec_dir, out, gates, chosen, repairing=(llm or "none").strip().lower() != "none",
                       fail_fast=fail_fast)
        return
    check_out_dir(out, spec_dir, suffix="validated")
    if cache_dir is not None:
        check_cache_dir(cache_dir)
    candidates = read_candidates(spec_dir)
    backend = connect(llm, model, cache_dir=cache_dir or out / "llm-cache", timeout_s=llm_timeout,
                      retries=llm_retries)
    reviser = None if isinstance(backend, NoLLMBackend) else LLMSpecGenerator(backend)
    # The gates read nothing in OUT (its LLM cache takes concurrent entries): two validates into OUT share only the
    # writing of its three files, which must stay one run's, so a second one waits for that alone.
    run = validate_and_repair(candidates, reviser, max_rounds=rounds, policy=chosen)
    with output_lock(out, "validate"), files_together():  # a rerun stopped by a full disk leaves the earlier three
        ENVS.write(accepted_table(run), out / "accepted.parquet")
        REJECTED.write(rejected_table(run), out / "rejected.parquet")
        funnel = run.funnel.as_dict()
        funnel_json = orjson.dumps(funnel, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        atomic_write_bytes(out / "funnel.json", funnel_json)
    if as_json:
        typer.echo(funnel_json.decode())
    else:
        typer.echo(render_funnel(funnel))
        say(f"wrote {out / 'accepted.parquet'}, {out / 'rejected.parquet'}, {out / 'funnel.json'}")
    report_requests(backend, "repair")  # every repair request failed: exit 3, after the tables are written


def validate_gates(spec_dir: Path, out: Path, gates: str | None, policy: Policy, *, repairing: bool,
                   fail_fast: bool = False) -> None:
    """`--gates`: each spec judged by the chosen gates alone; `--fail-fast`: each validation stopped at its first
    blocking error (`validate_spec(until=...)`). Their errors printed and written to OUT/gates.json (one report a
    spec, as a reviser gets it, saying which gates ran and which were skipped, and whether it stopped). A usage
    error (exit 2) for an unknown gate or a repair asked for."""
    from coworkenv.validate import validate_spec
    from coworkenv.validate.gates import check_gates
    from coworkenv.validate.validation import first_blocking

    try:
        selection = check_gates(gates)
    except ValueError as exc:
        fail(f"--gates {gates}: {exc}")
    option = "--fail-fast" if gates is None else "--gates"
    if repairing:
        fail(f"{option} runs only part of the validation and repairs nothing (a repair is judged by all ten gates, "
             f"run to the end); leave out --llm, or leave out {option} to validate and repair")
    check_out_dir(out, spec_dir, suffix="validated")
    reports: list[dict[str, Any]] = []
    for candidate in read_candidates(spec_dir):
        where = candidate.origin or candidate.capability
        if candidate.error is not None:
            reports.append({"origin": candidate.origin, "capability": candidate.capability,
                            "generation_error": f"{candidate.error}: {candidate.error_message}"})
            say(f"{where}: generation failed ({candidate.error}), nothing to validate")
            continue
        verdict = validate_spec(candidate.payload, policy=policy, gates=selection,
                                until=first_blocking(policy) if fail_fast else None)
        reports.append({"origin": candidate.origin, "capability": candidate.capability, **verdict.report()})
        ran = ", ".join(g.gate for g in verdict.gates)
        stopped = ", stopped at its first blocking error" if verdict.stopped else ""
        say(f"{where}: {'passed' if verdict.selection_passed else 'failed'} the gates that ran ({ran}{stopped})")
        for error in verdict.errors():
            say(f"  {error}")
    with output_lock(out, "validate"):
        atomic_write_bytes(out / "gates.json", orjson.dumps(reports, option=orjson.OPT_INDENT_2))
    what = f"gates {', '.join(selection)} only" if gates is not None else "stopped at the first blocking error"
    say(f"wrote {out / 'gates.json'} ({what}: a partial validation accepts nothing)")


def check_cache_dir(cache_dir: Path) -> None:
    """Exit 2 before any work when `--cache-dir` names a file, or a folder under a file: on main the first answer
    paid for was lost with the run (exit 1, no table written) when its entry could not be written there."""
    for folder in (cache_dir, *cache_dir.parents):
        if folder.exists():
            if not folder.is_dir():
                fail(f"--cache-dir {cache_dir}: {folder} is a file, not a folder; pass a folder for the LLM response "
                     f"cache (it is created when missing), or leave the option out (default: OUT/llm-cache)")
            return


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
    for key, label in (("infrastructure_failures", "LLM server failures"), ("model_failures", "LLM model failures"),
                       ("generation_failures", "lost before validation")):
        if funnel.get(key):
            lines.append(f"{label}: " + ", ".join(f"{k} {n}" for k, n in funnel[key].items()))
    if funnel["tokens_total"]:
        lines.append(f"tokens {funnel['tokens_total']} ({funnel['tokens_per_accepted']} per accepted spec)")
    return "\n".join(lines)
