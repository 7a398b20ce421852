"""Scale-out: the capability job's steps on a dask.distributed cluster (the dagster-dask executor).

Each capability partition is one Dagster run; its steps (task_specs -> validated_envs -> teacher_trajectories)
are shipped to the workers of a Dask scheduler, so partitions run side by side on as many worker processes or
machines as the cluster has. The workers import this code location and read the same COWORKENV_* settings as
the coordinator; they write events to the coordinator's Dagster instance (which must be persistent: SQLite on a
shared disk for one machine, Postgres past one) and data to the store under COWORKENV_DATA_DIR.

The executor is dagster-dask's step function behind a submit that current Dask accepts.
`COWORKENV_DASK_SCHEDULER=tcp://host:8786` makes every run the Dagster UI or daemon launches use the cluster;
`python -m pipelines.distributed --scheduler tcp://host:8786 CAPABILITY...` runs partitions on it directly.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import dagster as dg

from coworkenv.atomic import os_reason
from pipelines.dagster_internals import RetryMode
from pipelines.dagster_private import check_dask_names

if TYPE_CHECKING:  # names of Dagster's private modules for the types only: no run needs them to resolve
    from dagster._core.execution.context.system import PlanOrchestrationContext
    from dagster._core.execution.plan.plan import ExecutionPlan

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
    from dagster_dask.executor import query_on_dask_worker

    return _StepPayload(tuple(query_on_dask_worker(dependencies, *payload.args)))


class DaskClusterExecutor(dg.Executor):
    """Ships each step of a run to the Dask scheduler at `address`, after the steps it depends on."""

    def __init__(self, address: str) -> None:
        self.address = address

    @property
    def retries(self) -> RetryMode:
        return RetryMode.DISABLED

    def execute(self, plan_context: PlanOrchestrationContext, execution_plan: ExecutionPlan) -> Iterator[dg.DagsterEvent]:
        # dask is imported here, not with the code location: every `make run` would pay for it otherwise.
        import dask.distributed
        from dagster_dask.executor import get_dask_resource_requirements

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


@dg.executor(
    name="dask_cluster",
    requirements=dg.multiple_process_executor_requirements(),
    config_schema={"address": dg.Field(dg.StringSource, description="Dask scheduler, e.g. tcp://10.0.0.5:8786")},
)
def dask_cluster_executor(init_context: dg.InitExecutorContext) -> DaskClusterExecutor:
    """Run each step on a dask.distributed cluster (one Dagster run per partition, its steps on the workers)."""
    return DaskClusterExecutor(str(init_context.executor_config["address"]))


_SCHEDULER = re.compile(r"^(?:(?P<scheme>[a-z]+)://)?(?P<host>[^\s:/@]+|\[[0-9a-fA-F:.]+\]):(?P<port>\d{1,5})/?$")
_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def check_scheduler_address(address: str, flag: str | None = None) -> str:
    """`address` when it names a Dask scheduler ([tcp://]HOST:PORT); SettingsError naming the variable (or the
    command's `flag` that gave it) otherwise, before any run waits on a connection that cannot be made."""
    from pipelines.resources import SettingsError

    match = _SCHEDULER.match(address)
    if match is None or (match["scheme"] or "tcp") not in _SCHEMES or not 0 < int(match["port"]) < 65536:
        shown = re.sub(r"[^/\s]*@", "", address)  # never echo credentials put in the address (repr escapes controls)
        example = f"tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786, schemes: {', '.join(_SCHEMES)})"
        if flag is not None:
            raise SettingsError(f"{flag} {shown!r} is not a Dask scheduler address; pass {example}")
        raise SettingsError(f"{SCHEDULER_ENV}={shown!r} is not a Dask scheduler address; set it to {example}, "
                            "or unset it to run in this process")
    return address


def scheduler_reach_problem(address: str, timeout_s: float = 5.0) -> str | None:
    """Why no connection can be made to the Dask scheduler at `address` (checked by `check_scheduler_address`), or
    None when one can (or its scheme is not carried over TCP): each run waited on it for half a minute, then failed
    with a stack trace of Dask's."""
    match = _SCHEDULER.match(address)
    if match is None or (match["scheme"] or "tcp") == "ucx":
        return None
    host = match["host"].strip("[]")
    try:
        with socket.create_connection((host, int(match["port"])), timeout=timeout_s):
            return None
    except OSError as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, socket.gaierror) else os_reason(exc)
        return f"cannot reach the Dask scheduler at {host}:{match['port']} ({reason})"


def executor_from_env() -> dg.ExecutorDefinition | None:
    """The Dask executor bound to $COWORKENV_DASK_SCHEDULER, or None (Dagster's default) when it is unset.

    The names the executor takes from dagster-dask are checked here, when the code location loads: each run looked
    them up only when its steps were shipped, and failed there."""
    address = os.environ.get(SCHEDULER_ENV, "").strip()
    if not address:
        return None
    check_scheduler_address(address)
    check_dask_names(SCHEDULER_ENV)
    return dask_cluster_executor.configured({"address": address}, name="dask_cluster_from_env")
