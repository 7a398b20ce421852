"""`coworkenv env`: list, run and inspect environment specs: the shipped examples, a spec JSON file, a folder of
them, or Parquet (read by the same reader as every other stage). `run --agent llm --llm URL --model NAME` plays
a spec with any OpenAI-compatible server."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer

from coworkenv.commands import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    INFRASTRUCTURE_ERROR,
    LLMOption,
    ModelOption,
    RetriesOption,
    TimeoutOption,
    connect,
    fail,
    specs_or_exit,
    temperature_option,
)
from coworkenv.limits import DEFAULT_ENV_STEPS, MAX_REPLY_TOKENS, MAX_STEPS

if TYPE_CHECKING:
    from coworkenv.agents import Policy
    from coworkenv.checks import VerifierResult
    from coworkenv.llm import LLMBackend
    from coworkenv.rollout import TrajectoryRecord
    from coworkenv.spec import EnvSpec

# The commands import the Env, the examples and the LLM client when they run, not when `coworkenv` starts.

app = typer.Typer(help="Run and inspect environments: the shipped examples or spec JSON files.", no_args_is_help=True)

SpecArg = Annotated[str, typer.Argument(help="An example name (see `coworkenv env examples`), a spec JSON file, a "
                                              "folder of them, or Parquet with a spec_json column.")]
EnvIdOption = Annotated[str | None, typer.Option("--env-id", help="The spec to use when SPEC holds several.")]


class Agent(StrEnum):
    oracle = "oracle"
    noop = "noop"
    llm = "llm"


def _print_json(value: Any) -> None:
    typer.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


def _specs(name_or_path: str, env_id: str | None) -> list[EnvSpec]:
    """An example by name, or every spec a path holds (the stage reader); `env_id` picks one of them."""
    from coworkenv.examples import load_example
    from coworkenv.loading import SpecError

    path = Path(name_or_path)
    if path.exists() or "/" in name_or_path or path.suffix.lower() in (".json", ".jsonl", ".parquet"):
        specs = specs_or_exit(path)
    else:
        try:
            specs = [load_example(name_or_path)]
        except SpecError as exc:
            fail(exc.line)
    if env_id is None:
        return specs
    chosen = [s for s in specs if s.id == env_id]
    if not chosen:
        shown = ", ".join(s.id for s in specs[:10]) + (" ..." if len(specs) > 10 else "")
        fail(f"{name_or_path}: no spec with id {env_id!r} (ids: {shown})")
    return chosen[:1]


def _spec(name_or_path: str, env_id: str | None) -> EnvSpec:
    specs = _specs(name_or_path, env_id)
    if len(specs) > 1:
        fail(f"{name_or_path} holds {len(specs)} specs; pick one with --env-id (e.g. --env-id {specs[0].id})")
    return specs[0]


def _policy(agent: Agent, spec: EnvSpec) -> Policy:
    from coworkenv.agents import NoopPolicy, OraclePolicy

    return OraclePolicy(spec) if agent is Agent.oracle else NoopPolicy()


@app.command()
def examples(as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False) -> None:
    """List the names of the shipped example environments."""
    from coworkenv.examples import example_names

    names = example_names()
    if as_json:
        _print_json(names)
        return
    for name in names:
        typer.echo(name)


@app.command()
def run(
    name_or_path: SpecArg,
    agent: Annotated[Agent, typer.Option(help="Who plays: the reference solution (oracle), nobody (noop), or the "
                                              "model at --llm (llm).")] = Agent.oracle,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON (a list for several specs).")] = False,
    max_steps: Annotated[int, typer.Option(min=1, max=MAX_STEPS, help="Step limit of the episode.")] = DEFAULT_ENV_STEPS,
    env_id: EnvIdOption = None,
    llm: LLMOption = None,
    model: ModelOption = None,
    temperature: Annotated[float, temperature_option("LLM sampling temperature (--agent llm).")] = 0.0,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1, max=MAX_REPLY_TOKENS, help="LLM max tokens per reply.")] = 1024,
    llm_timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    llm_retries: RetriesOption = DEFAULT_RETRIES,
) -> None:
    """Run one episode per spec with an agent and print the score breakdown."""
    if (agent is Agent.llm) != (llm is not None):
        fail("--agent llm and --llm URL go together: --agent llm --llm http://127.0.0.1:8000/v1 --model NAME")
    specs = _specs(name_or_path, env_id)
    if llm is not None and any(s.simulated_user is not None for s in specs):  # its user's model, before any episode
        from coworkenv.rollout.users import spec_user

        for spec in specs:
            try:
                spec_user(spec)
            except ValueError as exc:
                fail(str(exc))
    backend = connect(llm, model, timeout_s=llm_timeout, retries=llm_retries) if llm is not None else None
    sampling = {"temperature": temperature, "max_tokens": max_tokens} if backend is not None else None
    results, lost = [], []
    for spec in specs:
        result, verdict, record = _episode(spec, backend or _policy(agent, spec), max_steps, sampling)
        results.append(result)
        if result["infrastructure_failure"]:
            lost.append(record)
        if not as_json:
            typer.echo(f"{spec.metadata.title or spec.capability} ({spec.id})")
            stop = "" if result["stop_reason"] == "done" else f", stopped: {result['stop_reason']}"
            if result.get("error"):
                stop += f" ({result['error']})"
            typer.echo(f"agent {agent.value}: {result['steps']} steps{', truncated' if result['truncated'] else ''}"
                       f"{stop}")
            typer.echo(render_breakdown(verdict) if not result["infrastructure_failure"] else
                       "no score: the episode did not run to an outcome of the model (see the error above)")
    if as_json:
        _print_json(results[0] if len(results) == 1 else results)
    if lost:  # the LLM server or the env's tool backend failed: no score stands for those episodes
        from coworkenv.llm import server_label
        from coworkenv.rollout import InfrastructureFailure

        fail(str(InfrastructureFailure(server_label(backend) if backend is not None else "-", lost, len(results))),
             INFRASTRUCTURE_ERROR)


def _episode(spec: EnvSpec, agent: LLMBackend | Policy, max_steps: int,
             sampling: dict[str, Any] | None) -> tuple[dict[str, Any], VerifierResult, TrajectoryRecord]:
    """One episode through the episode loop (the same one the teachers and evaluation use), as the printed result.
    An episode the LLM server or the env's tool backend failed (`infrastructure_failure`) has no score: its score
    fields are null and it lists no checks, as Claw-Eval records an errored task with no trials (the state it was
    cut in is no outcome of the model; every mean leaves it out)."""
    from coworkenv.env import Env
    from coworkenv.rollout import is_infrastructure_failure, run_agent
    from coworkenv.rollout.agent_loop import is_backend

    env = Env(spec, max_steps=max_steps)
    record = run_agent(env, agent, max_steps=max_steps, sampling=sampling)
    verdict = env.score()  # the whole result (completion, robustness, guards) of the episode's final state
    lost = is_infrastructure_failure(record)
    scored = dict.fromkeys(verdict.as_dict(), None) | {"guards_failed": [], "checks": []} if lost else verdict.as_dict()
    return {"env_id": spec.id, "agent": "llm" if is_backend(agent) else agent.name, "model": record.model,
            "steps": len(record.steps), "truncated": record.truncated, "stop_reason": record.stop_reason,
            "error": record.error, "infrastructure_failure": lost, "final_hash": record.final_hash,
            **scored}, verdict, record


def render_breakdown(result: VerifierResult) -> str:
    """The per-check breakdown as an aligned text table, then the score line."""
    header = ("check", "kind", "result", "weight", "flags", "reason")
    rows = [
        (
            c.id, c.kind, ("error" if c.error else ("pass" if c.passed else "FAIL"))
            + (f" {c.score:.2f}" if c.score not in (0.0, 1.0) else ""), f"{c.weight:g}",
            ",".join(f for f, on in (("guard", c.is_guard), ("required", c.required), ("safety", c.safety)) if on),
            c.reason,
        )
        for c in result.checks
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:-1], widths, strict=False)) + "  " + r[-1] for r in [header, *rows]]
    verdict = "PASSED" if result.passed else "FAILED"
    lines.append(f"score {result.score:.3f} (completion {result.completion:.3f})  {verdict}")
    return "\n".join(line.rstrip() for line in lines)


@app.command()
def schema() -> None:
    """Print the JSON Schema of EnvSpec."""
    from coworkenv.spec import envspec_json_schema

    _print_json(envspec_json_schema())


@app.command()
def tools(name_or_path: SpecArg, env_id: EnvIdOption = None) -> None:
    """Print the tools an environment exposes, in OpenAI function-calling format (JSON)."""
    from coworkenv.env import Env

    spec = _spec(name_or_path, env_id)
    _print_json(Env(spec).openai_tools())
