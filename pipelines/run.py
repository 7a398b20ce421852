"""The main job: materialize the whole chain on the embedded default into the local Dagster instance.

`make run` calls this. Capability partitions whose chain is incomplete (a changed YAML or setting, a failed or
killed run) are regenerated; then each aggregate (SFT shards, dataset release, checkpoint, eval report, the tiny
GRPO run's rollouts and checkpoint) is rebuilt only when what it is made from changed. The RL comparison (six
variants x seeds, tens of minutes on CPU) runs only with --rl-compare, or from the UI (`make ui`, asset
rl_comparison). Runs left STARTED by a killed process are marked failed first.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coworkenv.atomic import WriteError
from coworkenv.log_lines import escape_last_resort
from coworkenv.open_files import OpenFilesLimitError, ensure_open_files_limit
from coworkenv.standard_output import StandardOutputError, standard_output_stop, watching_standard_output
from pipelines.dagster_private import DagsterInternalsError, check_private_names
from pipelines.instance_errors import check_dagster_home, check_instance_config, instance_problem
from pipelines.run_signals import (
    Interrupted,
    deferred_interrupt_watchdog,
    one_run_per_folder,
    signals_raise_interrupted,
    stop_signal_name,
)

if TYPE_CHECKING:
    import dagster as dg

    from pipelines.resources import CoworkenvSettings

# Dagster's step events go to the run log (see `make ui`); the console shows progress and warnings.
QUIET = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}
POOL = "llm"
# Dagster holds SQLite connections, compute-log files and pipes per step; past the limit SQLite says only "unable to
# open database file", inside a step. Measured: a `--no-train` run of one capability failed at `ulimit -n 17` and
# passed at 19; 64 leaves room for more capabilities, training and the eval.
MINIMUM_OPEN_FILES = 64
EXIT_SYSTEM, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


class UsageError(Exception):
    """Bad input: one line saying what and where."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.run", description=__doc__)
    parser.add_argument("--only", nargs="*", default=None, help="capability ids to (re)materialize (default: stale)")
    parser.add_argument("--all", action="store_true", help="rematerialize every capability, stale or not")
    parser.add_argument("--no-train", action="store_true", help="stop after publishing the dataset")
    parser.add_argument("--no-rl", action="store_true", help="stop after the SFT checkpoint's eval report (no GRPO run)")
    parser.add_argument("--rl-compare", action="store_true",
                        help="also materialize rl_comparison: every reward x credit variant x COWORKENV_RL_SEEDS "
                             "seeds (tens of minutes on CPU; left out by default)")
    parser.add_argument("--taxonomy", metavar="DIR", help="taxonomy folder (default: $COWORKENV_TAXONOMY_DIR or taxonomy)")
    parser.add_argument("--allow-partial", action="store_true",
                        help="publish even if some capability partitions are incomplete (they are left out)")
    escape_last_resort()  # a module's warning naming a path ("published ... to <repository>"): one line
    args = parser.parse_args(argv)
    try:  # before anything imports a private Dagster name: the signal set-up does, where a signal is ignored
        check_private_names()
    except DagsterInternalsError as exc:
        return _say_error(str(exc), EXIT_SYSTEM)
    # The Definitions read their settings from the environment: the flags go there before they are imported, and
    # leave with the run, so a caller that runs main in its own process (a test, a notebook) keeps its environment.
    with _environment_for(args), signals_raise_interrupted(), watching_standard_output():
        home = Path(os.environ["DAGSTER_HOME"])
        try:
            ensure_open_files_limit(MINIMUM_OPEN_FILES, "a pipeline run")
        except OpenFilesLimitError as exc:
            return _say_error(str(exc), EXIT_SYSTEM)
        try:
            with one_run_per_folder(home):
                return _run(args)
        except UsageError as exc:
            return _say_error(str(exc), EXIT_USAGE)
        except StandardOutputError as exc:  # `| head`, `> /dev/full`: no file of the run's
            return standard_output_stop(exc)
        # DAGSTER_HOME cannot be locked (a file system without locks); an installed Dagster moved a private name
        except (WriteError, DagsterInternalsError) as exc:
            return _say_error(str(exc), EXIT_SYSTEM)
        except (Interrupted, KeyboardInterrupt):  # before `Exception`: Interrupted is one
            by = f" by {stop_signal_name()}" if stop_signal_name() else ""
            with contextlib.suppress(OSError):  # a terminal that closed (SIGHUP) takes no more; the code still tells
                print(f"interrupted: stopped{by}; partitions left incomplete are redone by the next run",
                      file=sys.stderr)
            return EXIT_INTERRUPTED
        except Exception as exc:
            problem = instance_problem(exc, home)
            if problem is None:
                raise
            return _say_error(str(problem), EXIT_USAGE if problem.usage else EXIT_SYSTEM)


def _say_error(message: str, code: int) -> int:
    from coworkenv.commands import error_line

    print(error_line(message), file=sys.stderr)
    return code


def _say(line: str, *, file: Any = None, flush: bool = False) -> None:
    """Print a progress line of the run as one line: it may name a path (a data folder reached through a link, a
    step's error naming a file) whose name holds a line break or a terminal escape, which printed raw split the log
    or drove the terminal. Control characters are escaped as in `error_line`."""
    from coworkenv.escaping import LINE_BREAKING, escape_hidden

    print(escape_hidden(line, LINE_BREAKING, undecodable_bytes=True), file=file or sys.stdout, flush=flush)


@contextmanager
def _environment_for(args: argparse.Namespace) -> Iterator[None]:
    changes = {"DAGSTER_HOME": os.environ.get("DAGSTER_HOME") or str(Path.cwd())}
    if args.taxonomy:
        changes["COWORKENV_TAXONOMY_DIR"] = args.taxonomy
    if args.allow_partial:
        changes["COWORKENV_ALLOW_PARTIAL"] = "1"
    before = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    settings, taxonomy = _checked_inputs(args)
    # Dagster's own checks of these raised from deep inside the instance, or said nothing (a key written twice).
    check_dagster_home(os.environ["DAGSTER_HOME"])
    check_instance_config(Path(os.environ["DAGSTER_HOME"]))
    import dagster as dg

    from pipelines.definitions import defs
    from pipelines.run_guard import reap_dead_runs, where_and_way_out
    from pipelines.staleness import other_data_folder_problem, partition_states, run_in_flight, sync_partitions

    instance = dg.DagsterInstance.get()
    for run in reap_dead_runs(instance):
        where = f"[{run.partition}]" if run.partition else ""
        _say(f"run {run.run_id} ({run.job}{where}) was left running by a process that is gone: marked failed, "
              "its pool slots freed")
    other = other_data_folder_problem(instance, taxonomy, settings)
    if other is not None:
        raise UsageError(other)
    added, removed = sync_partitions(instance, taxonomy)
    _say(f"taxonomy: {len(taxonomy.capabilities)} capabilities ({len(added)} new, {len(removed)} retired)")
    if args.only or args.all:
        todo = [(cid, "asked for") for cid in (args.only or sorted(taxonomy.capabilities))]
    else:
        states = partition_states(instance, taxonomy, settings)
        todo = [(s.capability, s.reason) for s in states if not s.complete]
        moved = sorted({str(s.moved_from) for s in states if s.moved_from is not None})
        if moved:  # the history's paths name the old folder: said once, not as a reason to generate again
            reused = sum(s.moved_from is not None for s in states)
            _say(f"data folder moved: the run history records {', '.join(moved)}; the same files (same content) are "
                 f"under {settings.root.resolve()}, the data folder now: {reused} capability "
                 f"partition{'' if reused == 1 else 's'} reused from there")
    capability_job = defs.resolve_job_def("capability_job")
    for i, (capability, reason) in enumerate(todo, 1):
        busy = run_in_flight(instance, capability)
        if busy is not None:
            there, gone = where_and_way_out(busy)
            _say(f"[{i:>2}/{len(todo)}] {capability:<40} skipped: run {busy.run_id} is materializing it now{there}"
                 + (f"{gone}, then run this again" if gone else ""))
            continue
        _say(f"[{i:>2}/{len(todo)}] {capability:<40} ({reason})", flush=True)
        t0 = time.monotonic()
        result = _execute(instance, capability_job, partition_key=capability)
        status = "ok" if result.success else "FAILED"
        _say(f"[{i:>2}/{len(todo)}] {capability:<40} {status} ({time.monotonic() - t0:.1f}s)", flush=True)
        if not result.success:
            return _failed(result)
    if not todo:
        print("every capability partition is complete")
    code = _aggregates(instance, defs, settings, _stages(args))
    if code:
        return code
    _print_locations(instance, _stages(args), settings)
    print(f"done in {time.monotonic() - started:.0f}s. Browse every materialization with `make ui`.")
    return 0


def _check_hub_model_token(train_config: str) -> None:
    """The training starts from a model on the Hub: the token the Hugging Face client sends for it (HF_TOKEN with
    quotes from an env file) checked before any run, not when the training asset starts after the stages before."""
    from coworkenv.credential_values import hub_client_token_problem
    from trainers.config import load_sft_config

    model = load_sft_config(train_config).model
    problem = hub_client_token_problem(model.name_or_path) if model.source != "tiny" and model.name_or_path else None
    if problem is not None:
        raise UsageError(f"COWORKENV_TRAIN_CONFIG={train_config!r}: {problem}")


def _check_hub_environment(settings: CoworkenvSettings) -> None:
    """A Hub publish this run would make, refused before any work when the Hub client's environment forbids it."""
    from coworkenv.store import TOKEN_ENV, hub_environment_problem

    if not os.environ.get(TOKEN_ENV):  # without a token the run publishes into the local repositories
        return
    for repo_id in (settings.hub_repo_id, settings.hub_model_repo_id):
        problem = hub_environment_problem(repo_id) if repo_id else None
        if problem is not None:
            raise UsageError(problem)


def _checked_inputs(args: argparse.Namespace) -> tuple[CoworkenvSettings, Any]:
    """Settings and taxonomy, checked before any run starts (UsageError: one line naming what to fix)."""
    from coworkenv.folder_paths import folder_problem
    from coworkenv.sandbox import required_layers
    from coworkenv.synth import TaxonomyError
    from pipelines.executors import SCHEDULER_ENV, check_scheduler_address
    from pipelines.resources import SettingsError, settings_from_env

    try:
        settings = settings_from_env(given_by={"taxonomy_dir": "--taxonomy"} if args.taxonomy else None)
        taxonomy = settings.taxonomy()
        if os.environ.get(SCHEDULER_ENV, "").strip():
            check_scheduler_address(os.environ[SCHEDULER_ENV].strip())
    except (SettingsError, TaxonomyError) as exc:
        raise UsageError(str(exc)) from None
    data_dir = folder_problem(Path(settings.data_dir))  # found by the first step's write, after its generation
    if data_dir is not None:
        raise UsageError(f"COWORKENV_DATA_DIR={settings.data_dir!r}: {data_dir}; point it at a folder (it is created "
                         "when missing)")
    try:
        required_layers()  # COWORKENV_SANDBOX_REQUIRE: a typo must stop the run, not only the specs with code
    except ValueError as exc:
        raise UsageError(f"{exc}; fix or unset the variable") from None
    _check_hub_environment(settings)
    unknown = [c for c in args.only or [] if c not in taxonomy.capabilities]
    if unknown:
        raise UsageError(f"--only {' '.join(unknown)}: not in the taxonomy {settings.taxonomy_dir}; "
                         f"capabilities: {', '.join(sorted(taxonomy.capabilities))}")
    held_out = settings.held_out_capability
    if held_out and held_out not in taxonomy.capabilities:
        default = " (the default)" if "COWORKENV_HELD_OUT_CAPABILITY" not in os.environ else ""
        raise UsageError(f"COWORKENV_HELD_OUT_CAPABILITY={held_out!r}{default} is not a capability of the taxonomy "
                         f"{settings.taxonomy_dir}; set it to one of {', '.join(sorted(taxonomy.capabilities))}, "
                         "or to an empty value to hold none out")
    if not args.no_train:
        from pipelines.freshness import rl_config_hash, trainer_config_hash

        try:
            trainer_config_hash(settings.train_config)
        except (FileNotFoundError, ValueError) as exc:
            raise UsageError(f"COWORKENV_TRAIN_CONFIG={settings.train_config!r}: {str(exc).splitlines()[0]}") from None
        _check_hub_model_token(settings.train_config)
        if not args.no_rl or args.rl_compare:
            try:
                rl_config_hash(settings.rl_config)
            except (FileNotFoundError, ValueError) as exc:
                raise UsageError(f"COWORKENV_RL_CONFIG={settings.rl_config!r}: {str(exc).splitlines()[0]}") from None
    return settings, taxonomy


def _stages(args: argparse.Namespace) -> list[tuple[str, ...]]:
    """The aggregate steps this run brings up to date, in order; each is the asset keys one step materializes."""
    from pipelines.jobs import AGGREGATES

    steps: list[tuple[str, ...]] = [(asset,) for asset in (AGGREGATES[:2] if args.no_train else AGGREGATES)]
    if not args.no_train and not args.no_rl:
        steps.append(("rl_rollouts", "rl_checkpoint"))  # one GRPO run makes both
    if not args.no_train and args.rl_compare:
        steps.append(("rl_comparison",))
    return steps


def _aggregates(instance: dg.DagsterInstance, defs: dg.Definitions, settings: CoworkenvSettings,
                steps: list[tuple[str, ...]]) -> int:
    """Rebuild each aggregate step whose inputs changed, in order; the others are reported up to date."""
    import dagster as dg

    from pipelines.freshness import (
        IncompletePartitions,
        held_out_env_ids,
        no_held_out_message,
        no_train_message,
        publishable_partitions,
        sft_paths,
        train_env_ids,
        why_stale,
    )
    from pipelines.jobs import RL_ASSETS

    for keys in steps:
        asset = keys[-1]
        try:
            reason = next((why for why in (why_stale(instance, key, settings) for key in keys) if why), "")
        except IncompletePartitions as exc:
            raise UsageError(str(exc)) from None
        if not reason:
            _say(f"{asset:<24} up to date")
            continue
        if asset == "pocketworker_checkpoint":
            sft = sft_paths(instance, settings) or {}
            states = publishable_partitions(instance, settings)[0]
            if not held_out_env_ids(sft, states, 1):
                raise UsageError(no_held_out_message(settings))  # before training, not after it
            if not train_env_ids(sft, states, 1):
                raise UsageError(no_train_message(settings))
        _say(f"{asset:<24} rebuilding ({reason})", flush=True)
        t0 = time.monotonic()
        job = defs.resolve_job_def("rl_job" if asset in RL_ASSETS else "publish_job")
        result = _execute(instance, job, asset_selection=[dg.AssetKey(key) for key in keys])
        _say(f"{asset:<24} {'ok' if result.success else 'FAILED'} ({time.monotonic() - t0:.1f}s)", flush=True)
        if not result.success:
            return _failed(result)
    return 0


def _execute(instance: dg.DagsterInstance, job: dg.JobDefinition, **kwargs: Any) -> dg.ExecuteInProcessResult:
    """Run `job` in this process, tagged with this process's id; raise Interrupted if a signal stopped it."""

    from pipelines.dagster_internals import make_new_run_id
    from pipelines.run_guard import owner_tags, wait_for_pool

    if job.name == "capability_job":  # its steps take slots of the llm pool
        wait_for_pool(instance, POOL, say=lambda line: _say(line, flush=True))
    run_id = make_new_run_id()
    try:
        with deferred_interrupt_watchdog() as fired:
            result = job.execute_in_process(instance=instance, run_id=run_id, raise_on_error=False,
                                            run_config=QUIET, tags=owner_tags(), **kwargs)
    finally:
        _settle(instance, run_id)
    if fired.is_set() or _interrupt_in(result):
        raise Interrupted
    return result


def _settle(instance: dg.DagsterInstance, run_id: str) -> None:
    """A run this process stops executing (normally or not) ends failed if not finished, and holds no slot."""
    run = instance.get_run_by_id(run_id)
    if run is not None and not run.is_finished:
        instance.report_run_failed(run, message="pipelines.run stopped (interrupted)")
    instance.event_log_storage.free_concurrency_slots_for_run(run_id)


_INTERRUPTS = ("DagsterExecutionInterruptedError", "KeyboardInterrupt", Interrupted.__name__)


def _interrupt_in(result: dg.ExecuteInProcessResult) -> bool:
    """Whether a signal stopped the run: a step failed with SIGINT/SIGTERM (Dagster defers them to step
    boundaries), or the run itself failed with one raised in Dagster's own loop (e.g. while it waits for a slot of a
    pool, where Dagster reports it as the run's failure)."""
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data:
            error = event.step_failure_data.error
        elif event.is_job_failure and event.job_failure_data:
            error = event.job_failure_data.error
        else:
            error = None
        while error is not None:
            if error.cls_name in _INTERRUPTS:
                return True
            error = error.cause
    return False


def _failed(result: dg.ExecuteInProcessResult) -> int:
    _say(f"run {result.run_id} failed; see it with `make ui`", file=sys.stderr)
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data and event.step_failure_data.error:
            _say(f"  {event.step_key}: {_step_reason(event.step_failure_data.error)}", file=sys.stderr)
        check = event.asset_check_evaluation_data if event.event_type_value == "ASSET_CHECK_EVALUATION" else None
        if check is not None and not check.passed:
            _say(f"  check {check.check_name} on {check.asset_key.to_user_string()} failed "
                  f"({', '.join(f'{k}={v.value}' for k, v in check.metadata.items())}); later steps were skipped",
                  file=sys.stderr)
    return 1


def _step_reason(error: Any) -> str:
    """What made a step fail, in one line: the innermost error behind Dagster's wrapper ("Error occurred while
    executing op ...") and SQLAlchemy's (whose last line is a link), headed by its class without its module."""
    while error.cause is not None:
        error = error.cause
    lines = error.message.strip().splitlines()
    # Its message up to SQLAlchemy's statement and link, or a blank line: a message's line break may be one in a path
    # it names (`_say` shows it as \n), and the rest of the line (the reason) was lost with it.
    end = next((i for i, line in enumerate(lines) if i and (not line.strip() or line.startswith(_DETAIL))), len(lines))
    first = "\n".join(lines[:end]).strip() or error.cls_name
    name, colon, text = first.partition(": ")
    return f"{name.rsplit('.', 1)[-1]}: {text}" if colon and " " not in name else first


_DETAIL = ("(Background on this error", "[SQL:", "[parameters:", "Stack Trace:")


def _print_locations(instance: dg.DagsterInstance, steps: list[tuple[str, ...]],
                     settings: CoworkenvSettings | None = None) -> None:
    from pipelines.freshness import latest_metadata
    from pipelines.staleness import DATA_DIR, located

    where = [("dataset", "hub_dataset", "location"), ("dataset version", "hub_dataset", "version"),
             ("SFT shards", "sft_shards", "dataset_version"), ("checkpoint", "pocketworker_checkpoint", "checkpoint"),
             ("eval report", "eval_report", "report_path"), ("RL checkpoint", "rl_checkpoint", "checkpoint"),
             ("RL reward slope", "rl_checkpoint", "reward_slope"), ("RL comparison", "rl_comparison", "report_path")]
    done = {asset for keys in steps for asset in keys}
    for label, asset, field in where:
        if asset not in done:
            continue
        meta = latest_metadata(instance, asset) or {}
        if field in meta:
            value = str(meta[field])
            if DATA_DIR in meta and settings is not None:  # where it is in the data folder now
                value = located(value, meta, settings.root)
            _say(f"  {label:<16} {Path(value).resolve() if field != 'version' and '/' in value else value}")


if __name__ == "__main__":
    raise SystemExit(main())
