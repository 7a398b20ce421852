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

from pipelines.executors import PARTITION_TAG, SCHEDULER_ENV, dask_cluster_executor

if TYPE_CHECKING:  # a name of Dagster's private modules for the type only: no run needs it to resolve
    from dagster._core.instance.ref import InstanceRef


def distributed_capability_job() -> dg.JobDefinition:
    """The capability job of the code location, its steps run by the (unconfigured) Dask executor.

    A module-level function so that `dg.reconstructable` can rebuild it in each Dask worker.
    """
    from pipelines.definitions import defs

    return defs.resolve_job_def("capability_job").with_executor_def(dask_cluster_executor)


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
    if not instance.is_persistent:
        raise ValueError("distributed runs need a persistent Dagster instance (set DAGSTER_HOME); "
                         "the workers write their step events to it")
    unknown = [p for p in partitions if not instance.has_dynamic_partition("capability", p)]
    if unknown:
        raise ValueError(f"capability partitions {unknown} are not registered in the Dagster instance; "
                         "run the taxonomy sensor or `python -m pipelines.run` once to register them")
    # One coordinator process per run, as Dagster's run launcher does: runs in threads of one process deadlock
    # in `logging` when one run configures the instance's log handlers while another emits.
    spawn = multiprocessing.get_context("spawn")
    workers = max(1, min(concurrent_runs or len(partitions), len(partitions)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=spawn) as pool:
        return list(pool.map(_coordinate_run, partitions, [scheduler] * len(partitions),
                             [instance.get_ref()] * len(partitions)))


def _coordinate_run(partition: str, scheduler: str, instance_ref: InstanceRef) -> PartitionRun:
    """In a run coordinator process: one capability partition, its steps shipped to the scheduler."""
    t0 = time.monotonic()
    run_config = {"execution": {"config": {"address": scheduler}}}
    with dg.DagsterInstance.from_ref(instance_ref) as instance, dg.execute_job(
        dg.reconstructable(distributed_capability_job), instance, run_config=run_config,
        tags={PARTITION_TAG: partition}, raise_on_error=False,
    ) as result:
        return PartitionRun(partition, result.run_id, result.success, time.monotonic() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.distributed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("capabilities", nargs="+", help="capability partitions to (re)materialize")
    parser.add_argument("--scheduler", default=os.environ.get(SCHEDULER_ENV, ""),
                        help=f"Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: ${SCHEDULER_ENV})")
    parser.add_argument("--concurrent-runs", type=int, default=None, help="runs in flight at once (default: all)")
    args = parser.parse_args(argv)
    if not args.scheduler:
        parser.error(f"no scheduler: pass --scheduler tcp://HOST:8786 or set {SCHEDULER_ENV}")
    os.environ.setdefault("DAGSTER_HOME", str(Path.cwd()))
    instance = dg.DagsterInstance.get()
    t0 = time.monotonic()
    runs = run_partitions(args.capabilities, args.scheduler, instance, args.concurrent_runs)
    for run in runs:
        print(f"{run.partition:<40} {'ok' if run.success else 'FAILED'} ({run.seconds:.1f}s) run {run.run_id}")
    print(f"{len(runs)} partitions in {time.monotonic() - t0:.1f}s on {args.scheduler}")
    failed = [r for r in runs if not r.success]
    if failed:
        print(f"{len(failed)} runs failed; see them with `make ui`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
