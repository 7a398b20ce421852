"""Distributed throughput: the capability job for N partitions on a loopback Dask cluster of 1 and of 2 workers.

Each partition (a capability of `taxonomy/`, `--specs` specs each) is one Dagster run whose steps the Dask
cluster executor ships to the workers (pipelines/executors.py); all runs are submitted at once. For each worker
count a fresh LocalCluster (one process per worker, one thread each) and a fresh SQLite Dagster instance and data
folder are used, and the same partitions run one after another in-process (workers 0 = `in-proc`) as the
baseline. Printed per worker count: wall seconds (cluster already up), partitions/min, specs/min
(generated, validated and rolled out), validated envs/min (accepted rows), and whether every data version equals
the other worker counts' (the runs must make the same data however many workers run them).

    python benchmarks/bench_distributed.py [--partitions 4] [--specs 2] [--workers 1 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

import dagster as dg  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from coworkenv.synth import load_taxonomy  # noqa: E402
from pipelines.distributed import run_partitions  # noqa: E402
from pipelines.jobs import PER_CAPABILITY  # noqa: E402
from pipelines.partitions import CAPABILITY_PARTITIONS  # noqa: E402

TAXONOMY = REPO_ROOT / "taxonomy"
NO_TELEMETRY = {"telemetry": {"enabled": False}}


@dataclass(frozen=True)
class Measurement:
    workers: int
    partitions: int
    specs: int
    wall_s: float
    partitions_per_min: float
    specs_per_min: float
    accepted_envs: int
    accepted_envs_per_min: float
    versions: dict[str, str]


def measure(workers: int, partitions: list[str], specs: int, scratch: Path) -> Measurement:
    """One cluster of `workers` processes, every partition submitted at once."""
    os.environ.update(COWORKENV_DATA_DIR=str(scratch / f"data-{workers}"), COWORKENV_TAXONOMY_DIR=str(TAXONOMY),
                      COWORKENV_SPECS_PER_CAPABILITY=str(specs))
    os.environ.pop("COWORKENV_LLM_URL", None)
    home = scratch / f"dagster-{workers}"
    home.mkdir()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, worker_dashboard_address=None) as cluster, Client(cluster), \
            dg.DagsterInstance.local_temp(str(home), overrides=NO_TELEMETRY) as instance:
        instance.add_dynamic_partitions(CAPABILITY_PARTITIONS, partitions)
        t0 = time.monotonic()
        runs = run_partitions(partitions, cluster.scheduler_address, instance)
        wall = time.monotonic() - t0
        failed = [r.partition for r in runs if not r.success]
        if failed:
            raise SystemExit(f"{workers} workers: runs failed for {failed}; see {home}")
        return _measurement(workers, partitions, specs, wall, instance)


def measure_in_process(partitions: list[str], specs: int, scratch: Path) -> Measurement:
    """The baseline: the same partitions one after another in this process (`python -m pipelines.run`'s way)."""
    from assets.envs import validated_envs
    from assets.specs import task_specs
    from assets.trajectories import teacher_trajectories
    from pipelines.jobs import capability_job
    from pipelines.resources import CoworkenvSettings

    settings = CoworkenvSettings(data_dir=str(scratch / "data-in-process"), taxonomy_dir=str(TAXONOMY),
                                 specs_per_capability=specs)
    job = dg.Definitions(assets=[task_specs, validated_envs, teacher_trajectories], jobs=[capability_job],
                         resources={"settings": settings}).resolve_job_def(capability_job.name)
    home = scratch / "dagster-in-process"
    home.mkdir()
    with dg.DagsterInstance.local_temp(str(home), overrides=NO_TELEMETRY) as instance:
        instance.add_dynamic_partitions(CAPABILITY_PARTITIONS, partitions)
        t0 = time.monotonic()
        for partition in partitions:
            if not job.execute_in_process(instance=instance, partition_key=partition, raise_on_error=False).success:
                raise SystemExit(f"in-process run failed for {partition}; see {home}")
        wall = time.monotonic() - t0
        return _measurement(0, partitions, specs, wall, instance)


def _measurement(workers: int, partitions: list[str], specs: int, wall: float,
                 instance: dg.DagsterInstance) -> Measurement:
    versions, accepted = {}, 0
    for key in PER_CAPABILITY:
        for partition in partitions:
            record = instance.fetch_materializations(dg.AssetRecordsFilter(
                asset_key=dg.AssetKey(key), asset_partitions=[partition]), limit=1).records[0]
            mat = record.asset_materialization
            assert mat is not None and mat.tags is not None
            versions[f"{key}[{partition}]"] = mat.tags["dagster/data_version"]
            if key == "validated_envs":
                accepted += int(mat.metadata["dagster/row_count"].value)  # type: ignore[arg-type]
    minutes = wall / 60
    return Measurement(workers, len(partitions), len(partitions) * specs, round(wall, 1),
                       round(len(partitions) / minutes, 2), round(len(partitions) * specs / minutes, 2),
                       accepted, round(accepted / minutes, 2), versions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--partitions", type=int, default=4, help="capabilities run (the first N, sorted)")
    parser.add_argument("--specs", type=int, default=2, help="specs per capability")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    partitions = sorted(load_taxonomy(TAXONOMY).capabilities)[: args.partitions]
    with tempfile.TemporaryDirectory() as tmp:
        results = [measure_in_process(partitions, args.specs, Path(tmp))]
        results += [measure(w, partitions, args.specs, Path(tmp)) for w in args.workers]
    same = all(r.versions == results[0].versions for r in results)
    if args.json:
        print(json.dumps({"results": [asdict(r) for r in results], "same_data_versions": same}, indent=2))
        return
    print(f"{len(partitions)} partitions x {args.specs} specs, cpus={os.cpu_count()}")
    print(f"{'workers':>7} {'wall_s':>7} {'part/min':>9} {'specs/min':>10} {'accepted':>9} {'accepted/min':>13}")
    for r in results:
        print(f"{r.workers or 'in-proc':>7} {r.wall_s:>7} {r.partitions_per_min:>9} {r.specs_per_min:>10} {r.accepted_envs:>9} "
              f"{r.accepted_envs_per_min:>13}")
    first = results[1]
    for r in results[2:]:
        print(f"speed-up {first.workers}->{r.workers} workers: {first.wall_s / r.wall_s:.2f}x")
    print(f"same data versions across worker counts: {same}")


if __name__ == "__main__":
    main()
