"""`coworkenv rollout SPECS --out DIR [--llm URL --model NAME] --k K`: teacher runs in envs.

Without --llm the oracle teacher narrates the reference solution; with it, the model at the OpenAI-compatible
server samples k episodes per env. Episodes the server failed after their retries are infrastructure failures:
they are counted apart, left out of the trajectories and the mean score, and make the command exit 3.
"""

from __future__ import annotations

from contextlib import nullcontext
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
    SpecsArg,
    TimeoutOption,
    check_out_dir,
    connect,
    deprecated,
    fail,
    output_lock,
    say,
    specs_or_exit,
    temperature_option,
)
from coworkenv.limits import (
    DEFAULT_EPISODE_STEPS,
    DEFAULT_LLM_K,
    DEFAULT_ORACLE_K,
    DEFAULT_SAMPLED_TEMPERATURE,
    MAX_REPLY_TOKENS,
    MAX_SAMPLES,
    MAX_STEPS,
)

if TYPE_CHECKING:
    from coworkenv.rollout import Teacher, TrajectoryRecord

# The teachers, the episode loop and the stores are imported when the command runs, not when `coworkenv` starts.


def earlier_episodes_problem(out: Path, env_ids: set[str]) -> str | None:
    """Why `out` cannot take this run's trajectories as they are, or None: it holds episodes of envs this run does
    not roll out (an earlier run's, of specs changed, repaired or removed since: a spec's id is its content's hash).

    A rollout adds its file (`trajectories-<hash>.parquet`) beside those already there, and every reader of the folder
    (`curate`, `train rl`'s reports) takes them all: curate trained on the episodes of a spec that no longer exists,
    scored by its old checks, beside the new ones, without a word. Files it cannot read are left to the readers, which
    name them."""
    if not out.is_dir():
        return None
    from coworkenv.store.stages import trajectory_env_ids, trajectory_files

    try:
        files = trajectory_files(out)
    except OSError:
        return None
    foreign: dict[Path, set[str]] = {}
    episodes = 0
    for file in files:
        envs = trajectory_env_ids(file)
        if envs is None:
            continue
        others = [env for env in envs if env not in env_ids]
        if others:
            foreign[file] = set(others)
            episodes += len(others)
    if not foreign:
        return None
    names = ", ".join(str(file) for file in list(foreign)[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3
                                                                    else "")
    envs_total = len(set().union(*foreign.values()))
    return (f"--out {out} already holds {episodes} episodes of {envs_total} envs that the specs given do not hold "
            f"(in {names}): an earlier rollout's, of specs changed or removed since; a reader of the folder (curate) "
            f"would take them with this run's; write to a new folder (e.g. --out {out.parent / (out.name + '-2')}), "
            f"move those files away, or pass --add to keep them beside this run's on purpose")


def rollout_summary(records: list[TrajectoryRecord], lost: list[TrajectoryRecord], path: Path | None,
                    llm: dict[str, Any] | None = None) -> dict[str, object]:
    """Episodes that ran (passed, mean score, stop reasons) and, apart, episodes lost to the LLM server."""
    from coworkenv.rollout import error_kinds

    reasons: dict[str, int] = {}
    for r in records:
        reasons[r.stop_reason] = reasons.get(r.stop_reason, 0) + 1
    summary: dict[str, object] = {
        "episodes": len(records),
        "passed": sum(r.passed for r in records),
        "mean_score": round(sum(r.score for r in records) / len(records), 4) if records else None,
        "envs": len({r.env_id for r in records}),
        "stop_reasons": dict(sorted(reasons.items())),
        "infrastructure_failures": len(lost),
        "infrastructure_failure_kinds": error_kinds(lost),
        "agent_tokens": sum(r.tokens.agent_prompt + r.tokens.agent_completion for r in records),
        "path": str(path) if path is not None else None,
    }
    if llm is not None:
        summary["llm"] = llm
    return summary


def rollout_command(
    envs_dir: SpecsArg,
    out: Annotated[Path, typer.Option("--out", help="Folder for the trajectories Parquet file.")],
    llm: LLMOption = None,
    model: ModelOption = None,
    teacher: Annotated[str | None, typer.Option(
        "--teacher", help="'oracle' (default without --llm) or 'llm'. A URL here is deprecated: use --llm URL.")] = None,
    k: Annotated[int | None, typer.Option("--k", min=1, max=MAX_SAMPLES, help=f"Episodes per env (default: {DEFAULT_ORACLE_K} for the oracle, "
                                                    f"differently phrased if more; {DEFAULT_LLM_K} for an LLM).")] = None,
    seed: Annotated[int, typer.Option("--seed", min=SEED_MIN, max=SEED_MAX, help="Base seed (sample i uses seed + i).")] = 0,
    temperature: Annotated[float, temperature_option("LLM sampling temperature.")] = DEFAULT_SAMPLED_TEMPERATURE,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1, max=MAX_REPLY_TOKENS, help="LLM max tokens per reply.")] = 1024,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, max=MAX_STEPS, help="Assistant messages per episode.")] = DEFAULT_EPISODE_STEPS,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="LLM requests in flight.")] = 8,
    llm_timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    llm_retries: RetriesOption = DEFAULT_RETRIES,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    add: Annotated[bool, typer.Option("--add", help="Write into an OUT that holds episodes of other envs (another "
                                                    "spec set's, kept on purpose); without it such an OUT is refused.")] = False,
) -> None:
    """Run a teacher in every env of SPECS and write its trajectories to OUT."""
    from coworkenv.llm import server_label
    from coworkenv.rollout import InfrastructureFailure, LLMTeacher, OracleTeacher, rollout_specs, split_outcomes
    from coworkenv.store.stages import episode_output_problem, write_trajectories

    if teacher is not None and teacher.startswith(("http://", "https://")):
        deprecated("--teacher URL", "--llm URL --model NAME")
        if llm is not None:
            fail("give the server once: --llm URL (--teacher URL is its deprecated spelling)")
        llm, teacher = teacher, "llm"
    if teacher not in (None, "oracle", "llm"):
        fail(f"unknown teacher {teacher!r}: use 'oracle', or --llm URL --model NAME for an OpenAI-compatible server")
    if teacher == "llm" and llm is None:
        fail("--teacher llm needs --llm URL --model NAME (an OpenAI-compatible server)")
    if teacher == "oracle" and llm is not None:
        fail("--teacher oracle plays the reference solution: drop --llm, or use --teacher llm")
    check_out_dir(out, envs_dir, inside=False, suffix="trajectories")
    inside_other = episode_output_problem(out, "rollout")  # an eval's runs, an RL step: not the teacher's folder
    if inside_other is not None:
        fail(inside_other)
    specs = specs_or_exit(envs_dir)
    env_ids = {spec.id for spec in specs}
    earlier = None if add else earlier_episodes_problem(out, env_ids)
    if earlier is not None:
        fail(earlier)
    runner: Teacher
    backend = None
    if llm is None:
        runner = OracleTeacher(seed, k=k or DEFAULT_ORACLE_K)
    else:
        backend = connect(llm, model, concurrency=concurrency, timeout_s=llm_timeout, retries=llm_retries)
        runner = LLMTeacher(backend, k or DEFAULT_LLM_K, {"temperature": temperature, "max_tokens": max_tokens, "seed": seed},
                            max_steps=max_steps)

    def progress(done: int, total: int) -> None:
        if not as_json and (done == total or done % 100 == 0):
            typer.echo(f"  {done}/{total} envs", err=True)

    # A run that checks what OUT holds holds OUT from that check to its write: a second rollout waits, then meets
    # this one's file. One with --add checks nothing there, so it shares only its write: its episodes run meanwhile.
    with nullcontext() if add else output_lock(out, "rollout"):
        earlier = None if add else earlier_episodes_problem(out, env_ids)  # again: another run may have written
        if earlier is not None:
            fail(earlier)
        ran, lost = split_outcomes(rollout_specs(specs, runner, progress))
        with output_lock(out, "rollout") if add else nullcontext():
            path = write_trajectories(ran, out, written_by="rollout") if ran else None
    summary = rollout_summary(ran, lost, path, backend.stats.as_dict() if backend is not None else None)
    if as_json:
        typer.echo(orjson.dumps(summary, option=orjson.OPT_INDENT_2).decode())
    else:
        score = "-" if summary["mean_score"] is None else f"{summary['mean_score']:.3f}"
        typer.echo(f"{summary['episodes']} episodes in {summary['envs']} envs: {summary['passed']} passed, "
                   f"mean score {score}")
        if backend is not None:
            typer.echo(f"LLM: {backend.stats.summary()}")
        say(f"trajectories: {path}" if path is not None else "trajectories: none written")
    if lost:  # to the LLM server (only an LLM's episodes) or to their env's tool backend (env_error, any teacher's)
        label = server_label(backend) if backend is not None else "-"
        fail(str(InfrastructureFailure(label, lost, len(ran) + len(lost))), INFRASTRUCTURE_ERROR)
