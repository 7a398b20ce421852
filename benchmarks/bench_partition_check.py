"""The partition check's cost on a large Dagster instance: what `partition_state` asks the instance for a complete
capability partition (per chain asset its latest materialization and the check evaluations of that run; the
partition's latest run), timed on a local SQLite instance (the storage `dagster.yaml` configures) holding `--caps`
capabilities with `--runs` runs each (every run materializing the three chain assets of its partition, with their
blocking checks).

One real run per capability is made with stand-in assets of the chain's names; its events are then stored again
under new run ids (`--runs` - 1 times, capability after capability, as a long-lived instance accumulates them).
Printed per history depth: event records, queries per capability, wall and CPU ms per capability and for the
whole taxonomy (one uncached `partition_states`), with the checks' lookup fetching the latest materialization again
(`again`, as before faults76) and reusing the record the partition check fetched (`reused`), alternated.

    python benchmarks/bench_partition_check.py [--caps 23] [--runs 1 10 40]
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

import dagster as dg  # noqa: E402

from pipelines import staleness  # noqa: E402
from pipelines.staleness import CHAIN, PARTITION_TAG  # noqa: E402


def _chain_assets(capabilities: list[str]) -> list[dg.AssetsDefinition]:
    partitions = dg.StaticPartitionsDefinition(capabilities)

    def make(name: str, deps: list[str]) -> dg.AssetsDefinition:
        @dg.asset(name=name, deps=deps, partitions_def=partitions,
                  check_specs=[dg.AssetCheckSpec("soundness", asset=name, blocking=True)])
        def _asset() -> dg.MaterializeResult:
            return dg.MaterializeResult(metadata={"input_hash": "h", "path": "/nowhere", "dataset_version": "v"},
                                        check_results=[dg.AssetCheckResult(check_name="soundness", passed=True)])
        return _asset

    return [make(name, list(CHAIN[:i][-1:])) for i, name in enumerate(CHAIN)]


def _grow(instance: dg.DagsterInstance, runs: list[dg.DagsterRun], copies: int) -> None:
    """Each of `runs` stored again `copies` times under new run ids, interleaved as a taxonomy's runs are."""
    logs = {run.run_id: instance.all_logs(run.run_id) for run in runs}
    for _ in range(copies):
        for run in runs:
            new_id = str(uuid.uuid4())
            instance.add_run(dg.DagsterRun(job_name=run.job_name, run_id=new_id, tags=run.tags,
                                           status=dg.DagsterRunStatus.SUCCESS))
            for entry in logs[run.run_id]:
                instance.store_event(entry._replace(run_id=new_id))


class _Counted:
    """Counts the instance calls the partition check makes."""

    def __init__(self, instance: dg.DagsterInstance) -> None:
        self.calls = 0
        for name in ("fetch_materializations", "all_logs", "get_runs", "get_latest_materialization_event"):
            original = getattr(instance, name)

            def counted(*args: object, _original: object = original, **kwargs: object) -> object:
                self.calls += 1
                return _original(*args, **kwargs)  # type: ignore[operator]
            setattr(instance, name, counted)


def _check(instance: dg.DagsterInstance, capability: str, refetch: bool) -> None:
    """The instance queries of `partition_state` for a complete partition."""
    for asset in CHAIN:
        record = staleness.latest_materialization(instance, dg.AssetKey(asset), capability)
        assert record is not None
        if refetch:  # as before faults76: the checks' lookup fetched the latest materialization again
            assert not staleness.failed_blocking_checks(instance, asset, capability)
        else:
            assert not staleness.failed_blocking_checks(instance, asset, capability, record.event_log_entry)
    assert staleness.latest_partition_run(instance, capability) is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--caps", type=int, default=23)
    parser.add_argument("--runs", type=int, nargs="+", default=[1, 10, 40])
    args = parser.parse_args()
    logging.getLogger("dagster").setLevel(logging.WARNING)
    capabilities = [f"cap_{i:02d}" for i in range(args.caps)]
    with tempfile.TemporaryDirectory() as home:
        (Path(home) / "dagster.yaml").write_text(f"storage:\n  sqlite:\n    base_dir: {home}/storage\n"
                                                 "telemetry:\n  enabled: false\n")
        instance = dg.DagsterInstance.from_config(home)
        assets = _chain_assets(capabilities)
        made = [dg.materialize(assets, partition_key=c, instance=instance).run_id for c in capabilities]
        runs = [r for r in (instance.get_run_by_id(run_id) for run_id in made) if r is not None]
        assert all(r.tags.get(PARTITION_TAG) for r in runs)
        depth = 1
        counted = _Counted(instance)
        print(f"{'runs/cap':>8} {'events':>8} {'lookup':>8} {'queries/cap':>11} {'wall ms/cap':>11} "
              f"{'cpu ms/cap':>10} {'taxonomy wall s':>15}", flush=True)
        for wanted in sorted(args.runs):
            _grow(instance, runs, wanted - depth)
            depth = max(depth, wanted)
            events = instance.event_log_storage.get_maximum_record_id() or 0
            for refetch in (True, False, True, False):  # alternated: the machine's load changes
                counted.calls = 0
                wall, cpu = time.perf_counter(), time.process_time()
                for capability in capabilities:
                    _check(instance, capability, refetch)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                n = len(capabilities)
                print(f"{depth:>8} {events:>8} {'again' if refetch else 'reused':>8} {counted.calls / n:>11.1f} "
                      f"{1000 * wall / n:>11.1f} {1000 * cpu / n:>10.1f} {wall:>15.2f}", flush=True)

if __name__ == "__main__":
    main()
