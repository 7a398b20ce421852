"""Capability partitions run on a dask.distributed cluster, each as one Dagster run whose steps the cluster
executor of `pipelines.executors` ships to the workers.

`python -m pipelines.distributed --scheduler tcp://host:8786 CAPABILITY...` runs partitions on it directly.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import dagster as dg

from coworkenv.escaping import escape_hidden
from pipelines.dagster_private import DagsterInternalsError, check_dask_names, check_private_names
from pipelines.instance_errors import InstanceError, check_dagster_home, check_instance_config

if TYPE_CHECKING:  # a name of Dagster's private modules for the type only: no run needs it to resolve
    from dagster._core.instance.ref import InstanceRef


def distributed_capability_job() -> dg.JobDefinition:
    """The capability job of the code location, its steps run by the (unconfigured) Dask executor.

    A module-level function so that `dg.reconstructable` can rebuild it in each Dask worker.
    """
    from pipelines.definitions import defs
    from pipelines.executors import dask_cluster_executor

    return defs.resolve_job_def("capability_job").with_executor_def(dask_cluster_executor)


class PartitionsError(ValueError):
    """The instance cannot run these partitions on a cluster: which, and what to do."""


@dataclass(frozen=True)
class PartitionRun:
    """One capability partition run on the cluster."""

    partition: str
    run_id: str
    success: bool
    seconds: float


def run_partitions(partitions: Sequence[str], scheduler: str, instance: dg.DagsterInstance,
                   concurrent_runs: int | None = None) -> list[PartitionRun]:
    """Run the capability job for each partition on the Dask scheduler at `scheduler`, up to `concurrent_runs`
    runs at a time (default: all at once; the cluster's workers bound the parallel steps)."""
    check_partitions(partitions, instance)
    # One coordinator process per run, as Dagster's run launcher does: runs in threads of one process deadlock
    # in `logging` when one run configures the instance's log handlers while another emits.
    spawn = multiprocessing.get_context("spawn")
    workers = max(1, min(concurrent_runs or len(partitions), len(partitions)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=spawn) as pool:
        return list(pool.map(_coordinate_run, partitions, [scheduler] * len(partitions),
                             [instance.get_ref()] * len(partitions)))


def check_partitions(partitions: Sequence[str], instance: dg.DagsterInstance) -> None:
    """PartitionsError unless `instance` can run these capability partitions on a cluster."""
    if not instance.is_persistent:
        raise PartitionsError("distributed runs need a persistent Dagster instance (set DAGSTER_HOME); "
                         "the workers write their step events to it")
    unknown = [p for p in partitions if not instance.has_dynamic_partition("capability", p)]
    if unknown:
        raise PartitionsError(f"capability partitions {unknown} are not registered in the Dagster instance; "
                         "run the taxonomy sensor or `python -m pipelines.run` once to register them")


def _coordinate_run(partition: str, scheduler: str, instance_ref: InstanceRef) -> PartitionRun:
    """In a run coordinator process: one capability partition, its steps shipped to the scheduler."""
    from pipelines.executors import PARTITION_TAG

    t0 = time.monotonic()
    run_config = {"execution": {"config": {"address": scheduler}}}
    with dg.DagsterInstance.from_ref(instance_ref) as instance, dg.execute_job(
        dg.reconstructable(distributed_capability_job), instance, run_config=run_config,
        tags={PARTITION_TAG: partition}, raise_on_error=False,
    ) as result:
        return PartitionRun(partition, result.run_id, result.success, time.monotonic() - t0)


def main(argv: list[str] | None = None) -> int:
    from coworkenv.log_lines import escape_last_resort

    escape_last_resort()  # a module's warning naming a path: one line, no escape code reaching the terminal
    try:  # before the executor's module, which imports them: a moved name is one line, not a traceback
        check_private_names()
    except DagsterInternalsError as exc:
        return _say_error(str(exc), 1)
    from pipelines.executors import SCHEDULER_ENV

    parser = argparse.ArgumentParser(prog="python -m pipelines.distributed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("capabilities", nargs="+", help="capability partitions to (re)materialize")
    parser.add_argument("--scheduler", default=None,
                        help=f"Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: ${SCHEDULER_ENV})")
    parser.add_argument("--concurrent-runs", type=int, default=None, help="runs in flight at once (default: all)")
    args = parser.parse_args(argv)
    scheduler = args.scheduler or os.environ.get(SCHEDULER_ENV, "").strip()
    if not scheduler:
        parser.error(f"no scheduler: pass --scheduler tcp://HOST:8786 or set {SCHEDULER_ENV}")
    if args.concurrent_runs is not None and args.concurrent_runs < 1:
        parser.error(f"--concurrent-runs {args.concurrent_runs}: must be 1 or more (leave it out for all at once)")
    try:
        instance = _checked_instance(args.capabilities, scheduler, "--scheduler" if args.scheduler else None)
    except (ValueError, InstanceError) as exc:  # a SettingsError or PartitionsError is a ValueError
        return _say_error(str(exc), 2 if not isinstance(exc, InstanceError) or exc.usage else 1)
    except DagsterInternalsError as exc:
        return _say_error(str(exc), 1)
    t0 = time.monotonic()
    runs = run_partitions(args.capabilities, scheduler, instance, args.concurrent_runs)
    for run in runs:
        print(f"{run.partition:<40} {'ok' if run.success else 'FAILED'} ({run.seconds:.1f}s) run {run.run_id}")
    print(escape_hidden(f"{len(runs)} partitions in {time.monotonic() - t0:.1f}s on {scheduler}"))
    failed = [r for r in runs if not r.success]
    if failed:
        print(f"{len(failed)} runs failed; see them with `make ui`", file=sys.stderr)
        return 1
    return 0


def _checked_instance(partitions: Sequence[str], scheduler: str, flag: str | None) -> dg.DagsterInstance:
    """The Dagster instance to run on, once the scheduler's address, the Dask executor's names and the instance's
    dagster.yaml are checked and the scheduler answers: each was found inside every run, after its record was made
    (an address that could not be reached failed each run after half a minute, with Dask's stack trace)."""
    from pipelines.executors import SCHEDULER_ENV, check_scheduler_address, scheduler_reach_problem

    check_scheduler_address(scheduler, flag)
    check_dask_names(flag or SCHEDULER_ENV)
    home = os.environ.get("DAGSTER_HOME") or str(Path.cwd())
    check_dagster_home(home)
    check_instance_config(Path(home))
    os.environ["DAGSTER_HOME"] = home
    instance = dg.DagsterInstance.get()
    check_partitions(partitions, instance)
    from pipelines.resources import settings_from_env
    from pipelines.staleness import other_data_folder_problem

    settings = settings_from_env()
    other = other_data_folder_problem(instance, settings.taxonomy(), settings)
    if other is not None:
        raise PartitionsError(other)
    unreachable = scheduler_reach_problem(scheduler)
    if unreachable is not None:
        raise InstanceError(f"{flag or SCHEDULER_ENV} {scheduler!r}: {unreachable}; start it "
                            "(`dask scheduler`, then `dask worker ADDRESS` on each machine) or fix the address; "
                            "no run was started", usage=False)
    return instance


def _say_error(message: str, code: int) -> int:
    from coworkenv.commands import error_line

    print(error_line(message), file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
