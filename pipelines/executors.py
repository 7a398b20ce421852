"""Scale-out: the capability job's steps on a dask.distributed cluster (the dagster-dask executor).

Each capability partition is one Dagster run; its steps (task_specs -> validated_envs -> teacher_trajectories)
are shipped to the workers of a Dask scheduler, so partitions run side by side on as many worker processes or
machines as the cluster has. The workers import this code location and read the same COWORKENV_* settings as
the coordinator; they write events to the coordinator's Dagster instance (which must be persistent: SQLite on a
shared disk for one machine, Postgres past one) and data to the store under COWORKENV_DATA_DIR.

The executor is dagster-dask's step function behind a submit that current Dask accepts.
`COWORKENV_DASK_SCHEDULER=tcp://host:8786` makes every run the Dagster UI or daemon launches use the cluster;
`python -m pipelines.executors --scheduler tcp://host:8786 CAPABILITY...` runs partitions on it directly.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import dask.distributed
from dagster._core.definitions.executor_definition import executor
from dagster._core.execution.context.system import PlanOrchestrationContext
from dagster._core.execution.plan.plan import ExecutionPlan
from dagster._core.execution.retries import RetryMode
from dagster._core.instance.ref import InstanceRef
from dagster_dask.executor import get_dask_resource_requirements, query_on_dask_worker

SCHEDULER_ENV = "COWORKENV_DASK_SCHEDULER"
PARTITION_TAG = "dagster/partition"


@dataclass(frozen=True)
class _StepPayload:
    """What one step needs on a worker, in a box Dask ships as is.

    Dask (2025+) walks every tuple argument of a task looking for futures, and Dagster's run records (named
    tuples that forbid iteration, e.g. a run's pool concurrency) break that walk; a plain object is not walked.
    """

    args: tuple[Any, ...]


def _run_step(dependencies: list[Any], payload: _StepPayload) -> _StepPayload:
    """On a worker: run one step of the plan (`dependencies` only orders it after its upstream steps)."""
    return _StepPayload(tuple(query_on_dask_worker(dependencies, *payload.args)))


class DaskClusterExecutor(dg.Executor):
    """Ships each step of a run to the Dask scheduler at `address`, after the steps it depends on."""

    def __init__(self, address: str) -> None:
        self.address = address

    @property
    def retries(self) -> RetryMode:
        return RetryMode.DISABLED

    def execute(self, plan_context: PlanOrchestrationContext, execution_plan: ExecutionPlan) -> Iterator[dg.DagsterEvent]:
        if not plan_context.instance.is_persistent:
            raise dg.DagsterInvariantViolationError("Dask execution needs a persistent Dagster instance (DAGSTER_HOME)")
        instance_ref = plan_context.instance.get_ref()
        futures: dict[str, Any] = {}
        with dask.distributed.Client(self.address) as client:
            for level in execution_plan.get_steps_to_execute_by_level():
                for step in level:
                    upstream = [futures[k] for step_input in step.step_inputs for k in step_input.dependency_keys]
                    payload = _StepPayload((plan_context.reconstructable_job, plan_context.dagster_run,
                                            plan_context.run_config, [step.key], instance_ref,
                                            execution_plan.known_state))
                    futures[step.key] = client.submit(
                        _run_step, upstream, payload, key=f"{plan_context.dagster_run.run_id}.{step.key}",
                        resources=get_dask_resource_requirements(step.tags), pure=False,
                    )
            for _future, events in dask.distributed.as_completed(list(futures.values()), with_results=True):
                yield from events.args


@executor(
    name="dask_cluster",
    requirements=dg.multiple_process_executor_requirements(),
    config_schema={"address": dg.Field(dg.StringSource, description="Dask scheduler, e.g. tcp://10.0.0.5:8786")},
)
def dask_cluster_executor(init_context: dg.InitExecutorContext) -> DaskClusterExecutor:
    """Run each step on a dask.distributed cluster (one Dagster run per partition, its steps on the workers)."""
    return DaskClusterExecutor(str(init_context.executor_config["address"]))


def executor_from_env() -> dg.ExecutorDefinition | None:
    """The Dask executor bound to $COWORKENV_DASK_SCHEDULER, or None (Dagster's default) when it is unset."""
    address = os.environ.get(SCHEDULER_ENV, "").strip()
    if not address:
        return None
    return dask_cluster_executor.configured({"address": address}, name="dask_cluster_from_env")


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
    parser = argparse.ArgumentParser(prog="python -m pipelines.executors", description=__doc__,
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
