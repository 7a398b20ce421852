"""Incremental re-generation cost: with N capabilities materialized, editing one re-runs 1/N of the generation work.

N capabilities of `taxonomy/` (quota `--quota` each) are copied into a temporary taxonomy folder and materialized
the way the deployment does it: the taxonomy sensor adds their partitions and requests one capability_job run
each, then sft_shards and hub_dataset rebuild from the stored partitions when their inputs changed. Then one capability's description is
edited (same amount of work per capability) and the sensor runs again. Printed per phase: capability runs,
generator calls, specs generated, validated and rolled out, and wall / CPU seconds of the capability runs and of
the aggregates. Everything runs in this process on a local SQLite Dagster instance in a temporary folder.

    python benchmarks/bench_incremental.py [--n 8] [--quota 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

import dagster as dg  # noqa: E402
import yaml  # noqa: E402

from assets.envs import validated_envs  # noqa: E402
from assets.hub import hub_dataset  # noqa: E402
from assets.sft import sft_shards  # noqa: E402
from assets.specs import task_specs  # noqa: E402
from assets.taxonomy import capability_taxonomy  # noqa: E402
from assets.trajectories import teacher_trajectories  # noqa: E402
from coworkenv import rollout, synth, validate  # noqa: E402
from pipelines.freshness import why_stale  # noqa: E402
from pipelines.jobs import capability_job  # noqa: E402
from pipelines.resources import CoworkenvSettings  # noqa: E402
from pipelines.sensors import taxonomy_sensor  # noqa: E402

# The runs' console logger at WARNING: the table is the output.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


@dataclass
class Phase:
    """The work one phase did and what it cost."""

    name: str
    runs: int = 0
    generate_calls: int = 0
    specs_generated: int = 0
    specs_validated: int = 0
    episodes: int = 0
    runs_wall_s: float = 0.0
    runs_cpu_s: float = 0.0
    aggregates_wall_s: float = 0.0
    aggregates_cpu_s: float = 0.0

    @property
    def total_wall_s(self) -> float:
        return self.runs_wall_s + self.aggregates_wall_s


def count_library_calls(phase: Callable[[], Phase]) -> None:
    """Wrap the library calls the assets make (through module attributes) so they add to the current phase."""
    generate, validate_run, rollout_run = synth.generate_specs, validate.validate_and_repair, rollout.rollout_specs

    def counted_generate(cap: synth.Capability, n: int, seed: int) -> Any:
        specs = generate(cap, n, seed)
        phase().generate_calls += 1
        phase().specs_generated += len(specs)
        return specs

    def counted_validate(candidates: list[validate.Candidate], **kwargs: Any) -> Any:
        phase().specs_validated += len(candidates)
        return validate_run(candidates, **kwargs)

    def counted_rollout(specs: list[Any], teacher: Any, **kwargs: Any) -> Any:
        records = rollout_run(specs, teacher, **kwargs)
        phase().episodes += len(records)
        return records

    synth.generate_specs = counted_generate  # type: ignore[assignment]
    validate.validate_and_repair = counted_validate  # type: ignore[assignment]
    rollout.rollout_specs = counted_rollout  # type: ignore[assignment]


def write_capability(taxonomy_dir: Path, cap: synth.Capability, quota: int, **changes: Any) -> None:
    data = cap.model_dump(mode="json")
    area = data.pop("area")
    data.update({"quota": quota, **changes})
    (taxonomy_dir / f"{cap.id}.yaml").write_text(yaml.safe_dump({"area": area, "capabilities": [data]}))


def sensor_tick(instance: dg.DagsterInstance, defs: dg.Definitions, settings: CoworkenvSettings) -> list[dg.RunRequest]:
    """Evaluate the taxonomy sensor and apply its partition requests, as the daemon does; return its run requests."""
    with dg.build_sensor_context(instance=instance, instance_ref=instance.get_ref(), definitions=defs,
                                 resources={"settings": settings}) as context:
        data = taxonomy_sensor.evaluate_tick(context)
    for request in data.dynamic_partitions_requests or []:
        if isinstance(request, dg.AddDynamicPartitionsRequest):
            instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
        else:
            for key in request.partition_keys:
                instance.delete_dynamic_partition(request.partitions_def_name, key)
    return list(data.run_requests or [])


def materialize(phase: Phase, instance: dg.DagsterInstance, defs: dg.Definitions,
                settings: CoworkenvSettings) -> None:
    """One sensor tick, the runs it requests, then the aggregates; timings into `phase`."""
    wall, cpu = time.perf_counter(), time.process_time()
    job = defs.resolve_job_def(capability_job.name)
    for request in sensor_tick(instance, defs, settings):
        assert job.execute_in_process(instance=instance, partition_key=request.partition_key,
                                      run_config=QUIET).success
        phase.runs += 1
    phase.runs_wall_s, phase.runs_cpu_s = time.perf_counter() - wall, time.process_time() - cpu
    wall, cpu = time.perf_counter(), time.process_time()
    # As `python -m pipelines.run` does: an aggregate is rebuilt only when what it is made from changed.
    for asset in ("sft_shards", "hub_dataset"):
        if why_stale(instance, asset, settings):
            assert defs.resolve_job_def("aggregates").execute_in_process(
                instance=instance, run_config=QUIET, asset_selection=[dg.AssetKey(asset)]).success
    phase.aggregates_wall_s, phase.aggregates_cpu_s = time.perf_counter() - wall, time.process_time() - cpu


def run(n: int, quota: int) -> list[Phase]:
    source = synth.load_taxonomy(REPO_ROOT / "taxonomy")
    caps = [source[cid] for cid in sorted(source.capabilities)[:n]]
    if len(caps) < n:
        raise SystemExit(f"--n {n}: the taxonomy has only {len(caps)} capabilities")
    phases = [Phase("full"), Phase("incremental (1 edited)"), Phase("unchanged")]
    current = [phases[0]]
    count_library_calls(lambda: current[0])
    with tempfile.TemporaryDirectory(prefix="bench-incremental-") as tmp:
        taxonomy_dir = Path(tmp) / "taxonomy"
        taxonomy_dir.mkdir()
        for cap in caps:
            write_capability(taxonomy_dir, cap, quota)
        settings = CoworkenvSettings(data_dir=str(Path(tmp) / "data"), taxonomy_dir=str(taxonomy_dir))
        defs = dg.Definitions(
            assets=[capability_taxonomy, task_specs, validated_envs, teacher_trajectories, sft_shards, hub_dataset],
            jobs=[capability_job, dg.define_asset_job("aggregates", selection=[sft_shards, hub_dataset])],
            sensors=[taxonomy_sensor], resources={"settings": settings},
        )
        (Path(tmp) / "dagster").mkdir()
        with dg.DagsterInstance.local_temp(tempdir=str(Path(tmp) / "dagster")) as instance:
            materialize(phases[0], instance, defs, settings)
            edited = caps[len(caps) // 2]
            write_capability(taxonomy_dir, edited, quota, description=edited.description + " Edited.")
            current[0] = phases[1]
            materialize(phases[1], instance, defs, settings)
            current[0] = phases[2]
            materialize(phases[2], instance, defs, settings)
    return phases


def print_table(phases: list[Phase], n: int, quota: int) -> None:
    print(f"incremental re-generation: N = {n} capabilities, quota {quota}, procedural generator + oracle teacher")
    header = (f"{'phase':<24}{'runs':>5}{'gen calls':>10}{'specs':>7}{'validated':>10}{'episodes':>9}"
              f"{'runs wall s':>12}{'runs cpu s':>11}{'agg wall s':>11}{'total s':>9}")
    print(header)
    print("-" * len(header))
    for p in phases:
        print(f"{p.name:<24}{p.runs:>5}{p.generate_calls:>10}{p.specs_generated:>7}{p.specs_validated:>10}"
              f"{p.episodes:>9}{p.runs_wall_s:>12.2f}{p.runs_cpu_s:>11.2f}{p.aggregates_wall_s:>11.2f}"
              f"{p.total_wall_s:>9.2f}")
    full, incremental = phases[0], phases[1]
    if full.generate_calls and full.runs_wall_s:
        print(f"incremental / full: generator calls {incremental.generate_calls}/{full.generate_calls} "
              f"(1/N = {1 / n:.3f}), capability-run wall time {incremental.runs_wall_s / full.runs_wall_s:.3f}, "
              f"total wall time {incremental.total_wall_s / full.total_wall_s:.3f} "
              "(an aggregate is rebuilt only when the data it is made from changed)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=8, help="capabilities materialized")
    parser.add_argument("--quota", type=int, default=2, help="specs per capability")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    logging.getLogger("coworkenv").setLevel(logging.ERROR)  # "split has no rows" notes of tiny releases
    phases = run(args.n, args.quota)
    print_table(phases, args.n, args.quota)
    if args.json:
        print(json.dumps([{**asdict(p), "total_wall_s": p.total_wall_s} for p in phases], indent=2))


if __name__ == "__main__":
    main()
