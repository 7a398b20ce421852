"""Per-partition completeness, which the Dagster UI does not show for partitions.

A capability partition is complete when every asset of its chain (task_specs -> validated_envs ->
teacher_trajectories) materialized for the current input: task_specs for the current input hash (the YAML
definition, the generator version and the generation settings), each later asset for the data version its upstream
has now, every recorded file still exists with the bytes it was written with and its LATEST pointer names it, and
the partition's latest run did not fail. A run killed half-way, a failed step, a failed blocking check, a file
edited on disk or a broken pointer therefore leaves the partition stale, and it is redone.

Each materialization records the data folder it wrote under (`DATA_DIR`, absolute) beside its paths: a path inside
it is read at the same place in the data folder the settings name now (`located`), so a data folder moved, renamed,
copied, reached through a link or named by a relative COWORKENV_DATA_DIR from another folder is read where it is
(its files' data versions are their content, not their paths). Records made before they named their data folder
hold paths only: a recorded file that is gone is looked for under the data folder now (`moved_file`) and, when it has
the recorded bytes and its pointer names it, taken as it is; `PartitionState.moved_from` names the folder the
history records.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from coworkenv.store import file_sha256, pointer_problem
from coworkenv.synth import Capability, Taxonomy, capability_fingerprint
from coworkenv.world import content_hash
from pipelines.code_versions import CODE_VERSIONS
from pipelines.partitions import CAPABILITY_PARTITIONS
from pipelines.resources import CoworkenvSettings

TASK_SPECS = dg.AssetKey("task_specs")
CHAIN = ("task_specs", "validated_envs", "teacher_trajectories")
PARTITION_TAG = "dagster/partition"
IN_FLIGHT = frozenset({
    dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING,
})
FAILED = frozenset({dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED})
# Metadata: the data folder (absolute) a materialization's recorded paths were written under, as named and with its
# links resolved (a data folder that is a link: the local publisher records its repository's real path).
DATA_DIR, DATA_DIR_RESOLVED = "data_dir", "data_dir_resolved"


@dataclass(frozen=True)
class PartitionState:
    """Whether one capability's chain is complete; if not, why; if so, its files and data versions by asset."""

    capability: str
    reason: str = ""  # empty when complete
    paths: dict[str, Path] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    moved_from: Path | None = None  # the data folder the run history records, when the files were found moved

    @property
    def complete(self) -> bool:
        return not self.reason


def moved_file(recorded: Path, root: Path) -> tuple[Path, Path] | None:
    """(the data folder `recorded` was written under, where it is now) when `recorded` is gone and the same path
    relative to one of its parent folders exists under the data folder `root`: the data folder was moved (or
    renamed) since. The longest such relative path is taken; None when there is none."""
    if recorded.exists():
        return None
    recorded, here = Path(os.path.abspath(recorded)), Path(os.path.abspath(root))
    for old in reversed(recorded.parents):  # "/" first: the longest relative path
        if old == here or old in here.parents or here in old.parents:
            continue  # not a move: the same folder, or one inside the other
        now = here / recorded.relative_to(old)
        if now.exists():
            return old, now
    return None


def data_folder_metadata(settings: CoworkenvSettings) -> dict[str, dg.MetadataValue]:
    """The entry every materialization that records paths in the data folder adds to its metadata (see `located`)."""
    return {DATA_DIR: dg.MetadataValue.path(str(settings.root)),
            DATA_DIR_RESOLVED: dg.MetadataValue.path(os.path.realpath(settings.root))}


def written_under(meta: Mapping[str, object]) -> list[str] | None:
    """The data folder a materialization's metadata (values, or Dagster's MetadataValues) says its paths were
    written under, as named and resolved; None for a record made before records named it."""
    found = [meta[key] for key in (DATA_DIR, DATA_DIR_RESOLVED) if key in meta]
    return [str(getattr(value, "value", value)) for value in found] or None


def located(recorded: str, meta: Mapping[str, object], root: Path) -> str:
    """Where a path a materialization recorded (in its metadata `meta`) is now. Inside the data folder the record
    names (`written_under`): the same path inside the data folder `root` (the history is keyed by the path in the
    data folder, not by where the folder was); outside it (a Hub repo, a file elsewhere) as recorded. A record that
    names no data folder (made before records did): as recorded, or where `moved_file` finds it when it is gone."""
    folders = written_under(meta)
    if folders is None:
        moved = moved_file(Path(recorded), root)
        return str(moved[1]) if moved is not None else recorded
    for folder in folders if os.path.isabs(recorded) else ():
        inside = os.path.relpath(os.path.normpath(recorded), os.path.normpath(folder))
        if inside != os.pardir and not inside.startswith(os.pardir + os.sep):
            return str(root) if inside == os.curdir else str(root / inside)
    return recorded


def history_data_folder(instance: dg.DagsterInstance, taxonomy: Taxonomy,
                        settings: CoworkenvSettings) -> tuple[Path, int] | None:
    """(the data folder the run history's capability partitions were written under, how many) when the data folder
    the settings name does not exist and that one, another, does: COWORKENV_DATA_DIR names another folder than the
    earlier runs' (a relative value read from another folder, a typo), and a run would generate everything again
    (an LLM paid again) into a new folder. None otherwise (a data folder that exists is the user's choice)."""
    if os.path.lexists(settings.root):
        return None
    folders: dict[Path, int] = {}
    for cid in sorted(taxonomy.capabilities):
        record = latest_materialization(instance, TASK_SPECS, cid)
        meta: Mapping[str, dg.MetadataValue] = \
            record.asset_materialization.metadata if record and record.asset_materialization else {}
        folder = Path(str(meta[DATA_DIR].value)) if DATA_DIR in meta else None
        if folder is not None and folder != settings.root and folder.is_dir():
            folders[folder] = folders.get(folder, 0) + 1
    return max(folders.items(), key=lambda item: item[1]) if folders else None


def other_data_folder_problem(instance: dg.DagsterInstance, taxonomy: Taxonomy, settings: CoworkenvSettings) -> str | None:
    """Why no run may start into the data folder the settings name (`history_data_folder`): said by
    `python -m pipelines.run` and `pipelines.distributed` (refused, exit 2) and by the taxonomy sensor of `dagster dev`
    (no run requested), each of which would otherwise generate everything again into a new folder. None if none."""
    import shlex

    other = history_data_folder(instance, taxonomy, settings)
    if other is None:
        return None
    folder, partitions = other
    relative = "" if os.path.isabs(settings.data_dir) else \
        f" (the value is relative, read from {Path.cwd()}, the folder this run started in)"
    return (f"COWORKENV_DATA_DIR={settings.data_dir!r} names {settings.root}{relative}, which does not exist, and the "
            f"run history's data ({partitions} capability partition{'' if partitions == 1 else 's'}) is in {folder}, "
            "where the earlier runs wrote it; nothing was generated. Point COWORKENV_DATA_DIR at that folder (an "
            "absolute path does not depend on where a run starts), or move it to the new place; to start a new data "
            f"folder there instead (everything generated again), make it first: mkdir -p {shlex.quote(str(settings.root))}")


def latest_materialization(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str) -> dg.EventLogRecord | None:
    """The record of the latest materialization of one partition, if any."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition]), limit=1
    ).records
    return records[0] if records else None


def failed_blocking_checks(instance: dg.DagsterInstance, asset: str, partition: str | None = None,
                           latest: dg.EventLogEntry | None = None) -> list[str]:
    """`name (key=value, ...)` of each blocking check that failed on the latest materialization of `asset` (of its
    `partition`; `latest`: its event, when the caller has fetched it already). Dagster records the materialization,
    then fails the step and skips the later steps of that run only: on `main` a later run took the output the checks
    refused as any other, a second `python -m pipelines.run` called an aggregate up to date, and an asset
    materialized alone (the UI's "Materialize") read it. [] when none failed, or the materialization has no run
    (recorded by hand)."""
    key = dg.AssetKey(asset)
    if latest is not None:
        event: dg.EventLogEntry | None = latest
    elif partition is None:
        event = instance.get_latest_materialization_event(key)
    else:
        record = latest_materialization(instance, key, partition)
        event = record.event_log_entry if record is not None else None
    if event is None or not event.run_id:
        return []
    failed = []
    for entry in instance.all_logs(event.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION):
        check = entry.dagster_event.asset_check_evaluation_data if entry.dagster_event is not None else None
        if (check is None or check.passed or getattr(check, "blocking", None) is False or check.asset_key != key
                or getattr(check, "partition", None) not in (None, partition)):
            continue  # a run materializes a partition once: its checks in that run are of that materialization
        shown = ", ".join(f"{k}={str(v.value)[:120]}" for k, v in check.metadata.items())
        failed.append(f"{check.check_name}{f' ({shown})' if shown else ''}")
    return failed


def failed_upstream_checks(instance: dg.DagsterInstance, upstream: str, partition: str) -> str | None:
    """Why a step of `partition` may not read `upstream`'s output: its latest materialization failed a blocking
    check (the run that made it stopped there; a later run materializing the step alone would take it). None if
    none failed."""
    failed = failed_blocking_checks(instance, upstream, partition)
    if not failed:
        return None
    return (f"{upstream}[{partition}]'s latest materialization failed its blocking checks: {'; '.join(failed)}; "
            f"nothing was read from it. Materialize the partition again once the cause is fixed (`python -m "
            f"pipelines.run` does; the check's result is in the Dagster UI under {upstream}, Checks)")


def partition_input_hash(capability: Capability, settings: CoworkenvSettings) -> str:
    """What one capability's partition is generated from: definition, generator version and generation settings."""
    return content_hash({
        "capability": capability_fingerprint(capability),
        "count": settings.specs_per_capability or capability.quota,
        "seed": settings.seed,
        "generator": settings.llm_model if settings.llm_url else "procedural",
        "repair_rounds": settings.repair_rounds,
        "code": [CODE_VERSIONS[asset] for asset in CHAIN],
    })[:32]


def latest_partition_run(instance: dg.DagsterInstance, capability: str) -> dg.DagsterRun | None:
    """The newest run that targeted this partition (any job), if any."""
    runs = instance.get_runs(dg.RunsFilter(tags={PARTITION_TAG: capability}), limit=1)
    return runs[0] if runs else None


def partition_state(instance: dg.DagsterInstance, capability: Capability, settings: CoworkenvSettings) -> PartitionState:
    """Check the chain of one capability partition (see the module docstring)."""
    cid = capability.id
    expected = partition_input_hash(capability, settings)
    paths: dict[str, Path] = {}
    versions: dict[str, str] = {}
    moved_from: Path | None = None
    for asset in CHAIN:
        record = latest_materialization(instance, dg.AssetKey(asset), cid)
        meta = record.asset_materialization.metadata if record and record.asset_materialization else None
        if meta is None:
            return PartitionState(cid, f"{asset} was never materialized")
        recorded = meta.get("input_hash")
        if recorded is None or str(recorded.value) != expected:
            why = "the capability or its generation settings changed" if asset == CHAIN[0] else \
                f"it is missing for the current {CHAIN[CHAIN.index(asset) - 1]}"
            return PartitionState(cid, f"{asset}: {why}")
        path = Path(str(meta["path"].value))
        if DATA_DIR in meta:  # its place in the data folder, wherever the folder is now
            path = Path(located(str(path), meta, settings.root))
        else:
            moved = moved_file(path, settings.root)
            if moved is not None and moved[1].is_file():
                moved_from, path = moved  # checked below as any recorded file: its bytes and its pointer
        if not path.is_file():
            return PartitionState(cid, f"{asset}: its file {path} is gone")
        failed = failed_blocking_checks(instance, asset, cid, record.event_log_entry if record else None)  # the record fetched above
        if failed:  # the run stopped there; a later run of the steps after it alone took it as any other
            return PartitionState(cid, f"{asset}: its blocking checks failed ({'; '.join(failed)})")
        version = str(meta["dataset_version"].value)
        if file_sha256(path) != version:  # later assets would read other rows under the recorded version
            return PartitionState(cid, f"{asset}: its file {path} was changed on disk since it was written")
        pointer = pointer_problem(path)  # later assets read the file by its dataset's LATEST pointer
        if pointer is not None:
            return PartitionState(cid, f"{asset}: {pointer}")
        paths[asset], versions[asset] = path, version
        expected = versions[asset]  # the next asset must have been made from this version
    run = latest_partition_run(instance, cid)
    if run is not None and run.status in FAILED:
        return PartitionState(cid, f"its latest run {run.run_id} ended {run.status.value}")
    return PartitionState(cid, "", paths, versions, moved_from)


_last_states: dict[str, list[PartitionState]] = {}


def partition_states(instance: dg.DagsterInstance, taxonomy: Taxonomy, settings: CoworkenvSettings) -> list[PartitionState]:
    """The state of every capability of the taxonomy, sorted by capability id.

    The answer is reused while the instance has recorded no event since and the taxonomy and settings are the
    same (one `pipelines.run` asks for it once per aggregate; each ask is 3 queries per capability).
    """
    capabilities = sorted(taxonomy.capabilities.items())
    key = content_hash({
        "instance": id(instance), "events": instance.event_log_storage.get_maximum_record_id(),
        "runs": [(r.run_id, r.status.value) for r in instance.get_runs(limit=1)],
        "taxonomy": [capability_fingerprint(cap) for _, cap in capabilities],
        "settings": settings.model_dump(mode="json"),
    })
    states = _last_states.get(key)
    if states is None or any(not path.is_file() for s in states for path in s.paths.values()):
        states = [partition_state(instance, cap, settings) for _, cap in capabilities]
        _last_states.clear()  # one entry: the latest
        _last_states[key] = states
    return list(states)


def stale_capabilities(instance: dg.DagsterInstance, taxonomy: Taxonomy, settings: CoworkenvSettings) -> list[str]:
    """Capabilities whose partition is not complete for the current definition and settings."""
    return [s.capability for s in partition_states(instance, taxonomy, settings) if not s.complete]


def run_in_flight(instance: dg.DagsterInstance, capability: str) -> dg.DagsterRun | None:
    """The newest run of this partition if it is queued or running, else None."""
    run = latest_partition_run(instance, capability)
    return run if run is not None and run.status in IN_FLIGHT else None


def incomplete_message(states: list[PartitionState]) -> str:
    """One line naming the incomplete partitions and why (empty when all are complete)."""
    missing = [s for s in states if not s.complete]
    if not missing:
        return ""
    listed = "; ".join(f"{s.capability} ({s.reason})" for s in missing)
    return f"{len(missing)} of {len(states)} capability partitions are incomplete: {listed}"


def partition_changes(instance: dg.DagsterInstance, taxonomy: Taxonomy) -> tuple[list[str], list[str]]:
    """(capabilities to add as partitions, partitions whose capability was removed)."""
    current = set(instance.get_dynamic_partitions(CAPABILITY_PARTITIONS))
    wanted = set(taxonomy.capabilities)
    return sorted(wanted - current), sorted(current - wanted)


def sync_partitions(instance: dg.DagsterInstance, taxonomy: Taxonomy) -> tuple[list[str], list[str]]:
    """Make the dynamic partitions equal to the taxonomy's capabilities; return (added, removed)."""
    added, removed = partition_changes(instance, taxonomy)
    if added:
        instance.add_dynamic_partitions(CAPABILITY_PARTITIONS, added)
    for key in removed:
        instance.delete_dynamic_partition(CAPABILITY_PARTITIONS, key)
    return added, removed
