"""The main job: materialize the whole chain on the embedded default into the local Dagster instance.

`make run` calls this. Only capabilities whose definition changed since their last materialization are
regenerated; the aggregate stage then rebuilds from the stored partitions.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import dagster as dg


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.run", description=__doc__)
    parser.add_argument("--only", nargs="*", default=None, help="capability ids to (re)materialize (default: stale)")
    parser.add_argument("--all", action="store_true", help="rematerialize every capability, stale or not")
    parser.add_argument("--no-train", action="store_true", help="stop after publishing the dataset")
    args = parser.parse_args(argv)

    os.environ.setdefault("DAGSTER_HOME", str(Path.cwd()))
    from pipelines.definitions import defs, settings_from_env
    from pipelines.staleness import stale_capabilities, sync_partitions

    instance = dg.DagsterInstance.get()
    settings = settings_from_env()  # the same settings the Definitions were built with
    taxonomy = settings.taxonomy()
    added, removed = sync_partitions(instance, taxonomy)
    print(f"taxonomy: {len(taxonomy.capabilities)} capabilities ({len(added)} new, {len(removed)} retired)")
    todo = args.only or (sorted(taxonomy.capabilities) if args.all else stale_capabilities(instance, taxonomy, settings))
    started = time.monotonic()
    # Dagster's step events go to the run log (see `make ui`); the console shows progress and warnings.
    quiet = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}
    capability_job = defs.resolve_job_def("capability_job")
    for i, capability in enumerate(todo, 1):
        t0 = time.monotonic()
        result = capability_job.execute_in_process(
            instance=instance, partition_key=capability, raise_on_error=False, run_config=quiet
        )
        status = "ok" if result.success else "FAILED"
        print(f"[{i:>2}/{len(todo)}] {capability:<40} {status} ({time.monotonic() - t0:.1f}s)", flush=True)
        if not result.success:
            print(f"run {result.run_id} failed; see it with `make ui`", file=sys.stderr)
            return 1
    if not todo:
        print("every capability is up to date; rebuilding the aggregates from stored partitions")
    selection = ["sft_shards", "hub_dataset"] if args.no_train else None
    t0 = time.monotonic()
    print("publish_job: curating SFT shards, publishing the dataset" + ("" if args.no_train else ", training, evaluating"),
          flush=True)
    publish = defs.resolve_job_def("publish_job")
    result = publish.execute_in_process(
        instance=instance, raise_on_error=False, run_config=quiet,
        asset_selection=[dg.AssetKey(k) for k in selection] if selection else None,
    )
    print(f"publish_job {'ok' if result.success else 'FAILED'} ({time.monotonic() - t0:.1f}s)")
    if not result.success:
        print(f"run {result.run_id} failed; see it with `make ui`", file=sys.stderr)
        return 1
    _print_locations(instance, selection)
    print(f"done in {time.monotonic() - started:.0f}s. Browse every materialization with `make ui`.")
    return 0


def _print_locations(instance: dg.DagsterInstance, selection: list[str] | None) -> None:
    keys = selection or ["sft_shards", "hub_dataset", "pocketworker_checkpoint", "eval_report"]
    for key in keys:
        event = instance.get_latest_materialization_event(dg.AssetKey(key))
        if event is None or event.asset_materialization is None:
            continue
        meta = event.asset_materialization.metadata
        for field in ("location", "path", "checkpoint", "report_path", "dataset_version", "version"):
            if field in meta:
                print(f"  {key:<24} {field}: {meta[field].value}")


if __name__ == "__main__":
    raise SystemExit(main())
