"""`coworkenv eval (--llm URL --model NAME | --model CHECKPOINT) --envs SPECS [--k K] [--json] [--out DIR]`.

A model on held-out envs: at an OpenAI-compatible server (e.g. `vllm serve`), or a local checkpoint run with
transformers. Episodes the server failed after their retries are not scores: the command exits 3 naming it.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from coworkenv.commands import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    INFRASTRUCTURE_ERROR,
    SPECS_HELP,
    LLMOption,
    RetriesOption,
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
from coworkenv.limits import DEFAULT_EPISODE_STEPS, DEFAULT_EVAL_REPLY_TOKENS, DEFAULT_SAMPLED_TEMPERATURE

# The LLM client, the episode loop and the evaluation are imported when the command runs, not by `coworkenv --help`.
if TYPE_CHECKING:
    from coworkenv.llm import LLMBackend
    from trainers.evaluate import EvalReport

def _backend(llm: str | None, model: str | None, served_model: str | None, concurrency: int, timeout_s: float,
             retries: int) -> LLMBackend:
    from coworkenv.llm import MODEL_ENV_VAR

    if model is not None and model.startswith(("http://", "https://")):
        deprecated("--model URL", "--llm URL --model NAME")
        if llm is not None:
            fail("give the server once: --llm URL (--model URL is its deprecated spelling)")
        llm, model = model, None
    if served_model is not None:
        deprecated("--served-model NAME", "--model NAME")
        model = model or served_model
    if llm is not None:
        model = model or os.environ.get(MODEL_ENV_VAR)
        if not model:
            fail("--llm URL needs --model NAME: the model name the server serves (`vllm serve PATH` serves it as "
                 f"PATH unless --served-model-name is given); or set ${MODEL_ENV_VAR}")
        return connect(llm, model, concurrency=concurrency, timeout_s=timeout_s, retries=retries)
    if not model:
        fail("name the model: --llm URL --model NAME for an OpenAI-compatible server, or --model CHECKPOINT_DIR")
    from trainers.local_backend import LocalTransformersBackend

    try:
        return LocalTransformersBackend(Path(model))
    except (FileNotFoundError, ValueError, OSError) as exc:
        fail(str(exc))


def _rendering(llm: str | None, model: str | None) -> str:
    """The chat rendering this run prompts its model with, known before the backend loads (`backend_rendering`): a
    local checkpoint's recorded one, `full` for a server."""
    if llm is not None or not model or model.startswith(("http://", "https://")):
        return "full"
    from trainers.rendering import read_rendering

    try:
        return read_rendering(Path(model))
    except (ValueError, OSError) as exc:  # as loading the checkpoint would say
        fail(str(exc))


def _refuse_other_episodes(out: Path) -> None:
    """Exit 2 when OUT is at, inside or above a folder of other episodes (a rollout's: the teacher's), which every
    reader of that folder would take with this eval's runs (`episode_output_problem`)."""
    from coworkenv.store.stages import episode_output_problem

    problem = episode_output_problem(out, "eval", own="runs")
    if problem is not None:
        fail(problem)


def label_problem(option: str, label: str) -> str | None:
    """Why `label` cannot name a column of the report's tables, or None. A `|` (a Markdown cell border) or a line
    break shifted every row, each model's numbers then under another's name; a blank named nothing."""
    where = f"{option} {label!r}"
    if not label.strip():
        return f"{where}: the label is blank; give each report a name (e.g. base=runs/base/eval_report.json)"
    if "|" in label:
        return (f"{where} holds '|', a Markdown table's cell border: the report's rows would shift, numbers under "
                "other models' names; use another name (e.g. with '-' for '|')")
    control = next((c for c in label if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")), None)
    if control is not None:
        what = "a line break" if control in "\r\n\v\f\x85\u2028\u2029" else f"the control character {control!r}"
        return f"{where} holds {what} (pasted?): the report's tables would break; type the label plainly"
    return None


def _compared(specs: list[str]) -> dict[str, EvalReport]:
    """The reports of `--compare`, by label: each label once (a label given twice kept the last report only)."""
    reports: dict[str, EvalReport] = {}
    for spec in specs:
        label, report = _read_report(spec)
        if label in reports:
            fail(f"--compare {label!r} is given twice: one label names one column, so only the last report would be "
                 f"shown; give each report a label of its own (e.g. {label}-2=PATH)")
        reports[label] = report
    return reports


def _refuse_other_settings(others: dict[str, EvalReport], k: int, settings: dict[str, object], allowed: bool) -> None:
    """Exit 2, before any episode runs, when the compared reports and this run differ in k (pass^k means another
    thing) or, unless `allowed`, in a setting that changes what a score means (`SCORE_SETTINGS`): shown side by side
    their changes and intervals would measure the settings as much as the models."""
    from trainers.evaluate import describe_settings_differences, settings_differences

    ks = {label: report.k for label, report in others.items()}
    if others and set(ks.values()) != {k}:
        given = ", ".join(f"{label} k={value}" for label, value in ks.items())
        fail(f"--compare reports of another k ({given}; this run k={k}): pass^k is only comparable at the same k; "
             "run this eval with the compared reports' --k, or compare reports of one k")
    differing = settings_differences({**{label: r.sampling for label, r in others.items()}, "this run": settings})
    if differing and not allowed:
        fail(f"--compare reports run under other settings ({describe_settings_differences(differing)}): their "
             "scores are not like-for-like, a change between the columns would measure the settings as much as the "
             "models; run this eval with the compared reports' --temperature/--max-tokens/--max-steps (or compare "
             "reports of the same settings, verifier version and chat rendering: a checkpoint is prompted in the "
             "rendering it was trained with, a server in full), or pass --allow-different-settings to show them "
             "side by side, marked as such, without intervals")


def _run_label(label: str | None, model: str, others: dict[str, EvalReport]) -> str:
    """This run's label in the report (`--label`, else the model's name): not a compared report's, which this
    run's report would replace without a word."""
    if label:
        problem = label_problem("--label", label)
        if problem is not None:
            fail(problem)
        if label in others:
            fail(f"--label {label!r} is a --compare label too: this run's report would replace the compared one; "
                 "give this run another --label")
        return label
    if model in others:
        fail(f"this run's label, the model's name {model!r}, is a --compare label too: this run's report would "
             "replace the compared one; pass --label NAME for this run, or label the compared report otherwise")
    return model


def _read_report(spec: str) -> tuple[str, EvalReport]:
    """LABEL=PATH: a report JSON (`--json` output) or an eval_report.json (its report of that label, or its only one)."""
    from trainers.evaluate import EvalReport

    label, sep, path = spec.partition("=")
    if not sep or not label or not path:
        fail(f"--compare {spec!r}: use LABEL=PATH, e.g. base=runs/base/eval_report.json")
    problem = label_problem("--compare", label)
    if problem is not None:
        fail(problem)
    from coworkenv.atomic import settle_before_reading
    from coworkenv.store.stages import missing_path

    if Path(path).exists() and not Path(path).is_file() and not Path(path).is_dir():  # a pipe: the read would wait
        fail(f"--compare {spec!r}: {path}: {missing_path(Path(path))}; pass the eval_report.json of an earlier eval")
    try:
        settle_before_reading(Path(path))  # a report whose eval was killed while placing its files: completed first
        data = orjson.loads(Path(path).read_bytes())
    except (OSError, ValueError) as exc:  # ValueError: the set's completion failed, or the JSON (orjson's error is one)
        fail(f"--compare {spec!r}: cannot read {path}: {exc}")
    if "reports" in data:
        reports = data["reports"]
        chosen = reports.get(label) or (next(iter(reports.values())) if len(reports) == 1 else None)
        if chosen is None:
            fail(f"--compare {spec!r}: {path} holds reports {sorted(reports)}; name one of them as LABEL")
        data = chosen
    try:
        return label, EvalReport.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        fail(f"--compare {spec!r}: {path} is not an evaluation report ({exc})")


def eval_command(
    envs: Annotated[Path, typer.Option("--envs", help=SPECS_HELP)],
    llm: LLMOption = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name at the --llm server; without --llm, a "
                                                              "local checkpoint folder.")] = None,
    k: Annotated[int, typer.Option("--k", min=1, help="Samples per env (pass^k needs k > 1).")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Write eval_report.md/.json/.png and the runs here.")] = None,
    served_model: Annotated[str | None, typer.Option("--served-model", help="Deprecated: use --model NAME.",
                                                     hidden=True)] = None,
    label: Annotated[str | None, typer.Option("--label", help="Name of this model in the report (default: the "
                                                                "backend's name).")] = None,
    compare: Annotated[list[str] | None, typer.Option("--compare", help="LABEL=REPORT_JSON to show side by side "
                                                                        "(repeatable; e.g. base=base/eval_report.json).")] = None,
    temperature: Annotated[float | None, temperature_option(
        f"Default: 0 for k=1, {DEFAULT_SAMPLED_TEMPERATURE:g} for k>1.")] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1, help="Tokens per assistant message.")] = DEFAULT_EVAL_REPLY_TOKENS,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="Assistant messages per episode.")] = DEFAULT_EPISODE_STEPS,
    allow_different_settings: Annotated[bool, typer.Option(
        "--allow-different-settings", help="Show --compare reports run under another temperature, max_tokens, "
                                           "max_steps, verifier version or chat rendering (marked in the report, "
                                           "without intervals) instead of refusing.")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Base seed (sample i uses seed + i).")] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Episodes in flight.")] = 8,
    llm_timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    llm_retries: RetriesOption = DEFAULT_RETRIES,
) -> None:
    """Evaluate a model on held-out envs: pass@1, pass^k and mean score per capability and single/multi-turn."""
    from coworkenv.atomic import files_together
    from coworkenv.rollout import InfrastructureFailure, TrajectoryRecord
    from coworkenv.store.stages import write_trajectories
    from trainers.eval_report import render_markdown, write_eval_report
    from trainers.eval_runs import earlier_runs_problem, superseded_runs
    from trainers.evaluate import compare_reports, eval_sampling, evaluate, run_settings

    if out is not None:
        check_out_dir(out)
        _refuse_other_episodes(out)
    specs = specs_or_exit(envs)
    others = _compared(compare or [])
    _refuse_other_settings(others, k, run_settings(eval_sampling(k, temperature, max_tokens, seed), max_steps,
                                                   _rendering(llm, model)), allow_different_settings)
    if label:  # before the backend: a local checkpoint takes a while to load
        _run_label(label, "", others)
    backend = _backend(llm, model, served_model, concurrency, llm_timeout, llm_retries)
    shown_label = _run_label(label, backend.name, others)
    sampling = eval_sampling(k, temperature, max_tokens, seed)
    env_ids = {spec.id for spec in specs}
    with output_lock(out, "eval"):  # a second eval into OUT waits, then meets this one's report and runs
        if out is not None:
            _refuse_other_episodes(out)  # again: another command may have written meanwhile
            problem = earlier_runs_problem(out, backend.name, env_ids, sampling, k, list(others.values()))
            if problem is not None:
                fail(problem)
        records: list[TrajectoryRecord] = []
        try:
            report = evaluate(backend, specs, k, temperature=temperature, max_tokens=max_tokens, max_steps=max_steps,
                              seed=seed, concurrency=concurrency, records=records)
        except InfrastructureFailure as exc:
            typer.echo(f"LLM: {backend.stats.summary()}", err=True)
            fail(f"{exc}; no report written", INFRASTRUCTURE_ERROR)
        try:
            shown = compare_reports({**others, shown_label: report})
        except ValueError as exc:
            fail(str(exc))
        if out is not None:
            # As a set: a rerun stopped by a full disk leaves the earlier report with its own episodes.
            with files_together():
                files = write_eval_report(out, shown)
                written = write_trajectories(records, out / "runs", written_by="eval")
                superseded = superseded_runs(out, written, backend.name, env_ids, sampling, k)
            for earlier in superseded:
                say(f"removed {earlier}: the episodes of this eval run before, under the report now replaced",
                           err=True)
            if not as_json:
                say(f"report: {files.markdown}  plot: {files.plot}", err=True)
    if as_json:
        typer.echo(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(render_markdown(shown))
