"""`coworkenv env`: list, run and inspect environment specs (the shipped examples or JSON files)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, NoReturn

import orjson
import typer

from coworkenv.agents import NoopPolicy, OraclePolicy, Policy, run_episode
from coworkenv.checks import VerifierResult
from coworkenv.env import DEFAULT_MAX_STEPS, Env
from coworkenv.examples import example_names, resolve_spec
from coworkenv.loading import SpecError
from coworkenv.spec import EnvSpec, envspec_json_schema

app = typer.Typer(help="Run and inspect environments: the shipped examples or spec JSON files.", no_args_is_help=True)

USAGE_ERROR = 2
SpecArg = Annotated[str, typer.Argument(help="An example name (see `coworkenv env examples`) or a spec JSON path.")]


class Agent(StrEnum):
    oracle = "oracle"
    noop = "noop"


def _print_json(value: Any) -> None:
    typer.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


def _fail(message: str) -> NoReturn:
    # One paragraph on stderr and exit code 2: bad input is the caller's to fix, not a crash.
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(USAGE_ERROR)


def _spec(name_or_path: str) -> EnvSpec:
    try:
        return resolve_spec(name_or_path)
    except SpecError as exc:
        _fail(str(exc))


def _policy(agent: Agent, spec: EnvSpec) -> Policy:
    return OraclePolicy(spec) if agent is Agent.oracle else NoopPolicy()


@app.command()
def examples(as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False) -> None:
    """List the names of the shipped example environments."""
    names = example_names()
    if as_json:
        _print_json(names)
        return
    for name in names:
        typer.echo(name)


@app.command()
def run(
    name_or_path: SpecArg,
    agent: Annotated[Agent, typer.Option(help="The policy that plays the episode.")] = Agent.oracle,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    max_steps: Annotated[int, typer.Option(min=1, help="Step limit of the episode.")] = DEFAULT_MAX_STEPS,
) -> None:
    """Run one episode with a built-in agent and print the score breakdown."""
    spec = _spec(name_or_path)
    env = Env(spec, max_steps=max_steps)
    episode = run_episode(env, _policy(agent, spec))
    if as_json:
        _print_json({
            "env_id": spec.id, "agent": agent.value, "steps": episode.steps, "truncated": episode.truncated,
            "final_hash": episode.final_hash, **episode.result.as_dict(),
        })
        return
    typer.echo(f"{spec.metadata.title or spec.capability} ({spec.id})")
    typer.echo(f"agent {agent.value}: {episode.steps} steps{', truncated' if episode.truncated else ''}")
    typer.echo(render_breakdown(episode.result))


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
    _print_json(envspec_json_schema())


@app.command()
def tools(name_or_path: SpecArg) -> None:
    """Print the tools an environment exposes, in OpenAI function-calling format (JSON)."""
    spec = _spec(name_or_path)
    _print_json(Env(spec).openai_tools())
