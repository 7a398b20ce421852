"""Runs whose process died (kill -9, a crash, a reboot) and the pool slots they hold.

A killed run stays STARTED in the instance and keeps its concurrency slots, so the next run would wait for a slot
forever. `reap_dead_runs` marks every started run whose process is gone as failed and frees its slots (Dagster's
run monitoring does the same for daemon-launched runs, but only while the daemon runs); `wait_for_pool` waits for
a free slot, saying which runs hold them, instead of blocking inside Dagster where interrupts are deferred.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import psutil

PID_TAG = "coworkenv/pid"
STAMP_TAG = "coworkenv/process_start_stamp"  # boot id and start ticks: immune to wall-clock changes
_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
STARTED_TAG = "coworkenv/process_started"
PLACE_TAG = "coworkenv/process_place"  # host name and pid namespace: where the pid means this process
ALIVE = frozenset({dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING, dg.DagsterRunStatus.STARTING})


def owner_tags() -> dict[str, str]:
    """Tags naming this process, for runs it executes in-process."""
    tags = {PID_TAG: str(os.getpid()), STARTED_TAG: f"{psutil.Process().create_time():.3f}", PLACE_TAG: this_place()}
    stamp = start_stamp(os.getpid())
    if stamp is not None:
        tags[STAMP_TAG] = stamp
    return tags


def this_place() -> str:
    """`<host name> <pid namespace>` of this process: a pid names a process only there. Two machines, or two containers
    on one machine (their own host names and pid namespaces, one boot id), sharing one instance (a Dagster home on a
    shared volume, a Postgres instance) cannot see each other's processes."""
    try:
        space = os.readlink("/proc/self/ns/pid")
    except OSError:
        space = "pid:?"
    return f"{socket.gethostname()} {space}"


def elsewhere(run: dg.DagsterRun) -> str | None:
    """The host name of the machine or container whose process executes `run`, where that is not this one (its
    process cannot be looked for here), else None."""
    place = run.tags.get(PLACE_TAG)
    if place is None or place == this_place():
        return None
    return place.rpartition(" ")[0] or place


def where_and_way_out(run: dg.DagsterRun) -> tuple[str, str]:
    """(` on <host> (another machine ...)`, `; if it is not running there any more ...`): where `run`'s process is
    and how to free what it holds if that machine is gone for good (its run never ends by itself); ("", "") for a run
    of this place."""
    host = elsewhere(run)
    if host is None:
        return "", ""
    return (f" on {host} (another machine or container sharing this Dagster instance)",
            f"; if it is not running there any more (that machine stopped, or is gone for good: the run never ends by "
            f"itself and holds the partition until then), mark it failed: `python -m pipelines.run` on {host} does, "
            f"or force its termination in the Dagster UI (Runs, run {run.run_id[:8]}, Terminate, with \"Force "
            "termination immediately\")")


def record_place(instance: dg.DagsterInstance, run_id: str) -> None:
    """Tag run `run_id` with this process's place where it has none: a run launched by the Dagster UI or the sensor
    (its run worker's pid only on its RUN_START event) says where that pid means its process once a step runs."""
    run = instance.get_run_by_id(run_id)
    if run is not None and PLACE_TAG not in run.tags:
        instance.add_run_tags(run_id, {PLACE_TAG: this_place()})


def start_stamp(pid: int) -> str | None:
    """`<boot id>:<start in clock ticks since boot>` of process `pid` (Linux /proc), or None where it cannot be read.

    Unlike a start time on the wall clock, it does not move when the clock is set (NTP, a VM resumed, a clock
    jump), so it tells a live owner from a reused pid without mistaking a live one for dead.
    """
    try:
        boot = _BOOT_ID.read_text().strip()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # after the command name, which may hold spaces: field 3 onwards
    return f"{boot}:{fields[19]}" if len(fields) > 19 else None  # field 22: starttime


def _run_process(instance: dg.DagsterInstance, run: dg.DagsterRun) -> tuple[int, float, str | None] | None:
    """(pid, earliest allowed process start time, start stamp if tagged) of the process executing `run`."""
    if PID_TAG in run.tags:
        return int(run.tags[PID_TAG]), float(run.tags.get(STARTED_TAG, "0")), run.tags.get(STAMP_TAG)
    # Runs started elsewhere: the run worker's pid is on its RUN_START event.
    for entry in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_START):
        if entry.dagster_event is not None and entry.dagster_event.pid is not None:
            return entry.dagster_event.pid, 0.0, None
    return None


def process_alive(pid: int, started: float, not_after: float | None = None, stamp: str | None = None) -> bool:
    """Whether process `pid` runs and is the one that was started at `started` (not a reused pid).

    With the `stamp` the run was tagged with, the check does not use the wall clock at all.
    """
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        created = proc.create_time()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
    if stamp is not None:
        current = start_stamp(pid)
        if current is not None:
            return current == stamp
    if started and abs(created - started) > 1.0:
        return False
    return not (not_after is not None and created > not_after + 1.0)


def run_is_orphaned(instance: dg.DagsterInstance, run: dg.DagsterRun) -> bool:
    """A run marked as executing whose process is gone. A run executed on another machine or in another container
    sharing the instance is never taken for orphaned here: its pid means nothing on this one (on `main` such a run
    was marked failed, its pool slots freed, and its partition made a second time beside it); that machine's own
    `pipelines.run` or the Dagster UI ends it."""
    if run.status not in ALIVE or elsewhere(run) is not None:
        return False
    found = _run_process(instance, run)
    if found is None:
        return False  # not started far enough to tell; Dagster's run monitoring times out such runs
    pid, started, stamp = found
    record = instance.get_run_record_by_id(run.run_id)
    begun = record.start_time if record is not None else None
    return not process_alive(pid, started, begun, stamp)


@dataclass(frozen=True)
class Reaped:
    run_id: str
    job: str
    partition: str | None


def reap_dead_runs(instance: dg.DagsterInstance) -> list[Reaped]:
    """Mark started runs whose process is gone as failed and free their pool slots; also free slots still held by
    runs that already ended. Returns the runs marked failed."""
    reaped = []
    for run in instance.get_runs(dg.RunsFilter(statuses=list(ALIVE))):
        if run_is_orphaned(instance, run):
            instance.report_run_failed(run, message="its process is gone (killed or crashed); marked failed and its "
                                                    "pool slots freed by pipelines.run")
            instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
            reaped.append(Reaped(run.run_id, run.job_name, run.tags.get("dagster/partition")))
    for pool in instance.event_log_storage.get_concurrency_keys():
        info = instance.event_log_storage.get_concurrency_info(pool)
        for run_id in info.active_run_ids | {s.run_id for s in info.pending_steps}:
            holder = instance.get_run_by_id(run_id)
            if holder is None or holder.is_finished:
                instance.event_log_storage.free_concurrency_slots_for_run(run_id)
    return reaped


def pool_holders(instance: dg.DagsterInstance, pool: str) -> tuple[int | None, list[str]]:
    """(the pool's limit, a description of each run holding a slot)."""
    info = instance.event_log_storage.get_concurrency_info(pool)
    holders = []
    for slot in info.claimed_slots:
        run = instance.get_run_by_id(slot.run_id)
        what = f"{run.job_name}" + (f"[{run.tags['dagster/partition']}]" if run and "dagster/partition" in run.tags
                                    else "") if run else "?"
        holders.append(f"run {slot.run_id} ({what}, step {slot.step_key})")
    return info.limit, holders


def wait_for_pool(instance: dg.DagsterInstance, pool: str, say: Callable[[str], None], poll_s: float = 2.0) -> None:
    """Return when `pool` has a free slot; say once (and when the holders change) which runs hold the slots."""
    last: list[str] | None = None
    while True:
        reap_dead_runs(instance)
        limit, holders = pool_holders(instance, pool)
        if limit is None or len(holders) < limit:
            return
        if holders != last:
            say(f"waiting for a slot in pool {pool!r} (limit {limit}), held by: " + "; ".join(holders)
                + " (stop with Ctrl-C)")
            last = holders
        time.sleep(poll_s)


PARTITION_TAG = "dagster/partition"


def earlier_run_of_partition(instance: dg.DagsterInstance, run_id: str, partition: str) -> dg.DagsterRun | None:
    """A run other than `run_id` that is materializing `partition` now (started, its process alive) and began
    before it (its start, or its creation where none is recorded; ties by run id), or None. Two runs of one partition
    at once (the UI's "Materialize" clicked while `make run` or the taxonomy sensor's run does it, a run launched
    twice) each read the upstream LATEST as it stood when their step began and wrote their own files: one run's step
    read the other's specs, the records and the pointers came apart, and the partition was made twice (an LLM paid
    twice). The later run stops, the earlier goes on."""
    mine = instance.get_run_record_by_id(run_id)
    if mine is None:
        return None
    order = _began(mine)
    records = instance.get_run_records(dg.RunsFilter(tags={PARTITION_TAG: partition},
                                                     statuses=[dg.DagsterRunStatus.STARTED]))
    for record in records:
        run = record.dagster_run
        if run.run_id == run_id or _began(record) > order:
            continue
        if not run_is_orphaned(instance, run):
            return run
    return None


def _began(record: dg.RunRecord) -> tuple[float, str]:
    """When a run began (its RUN_START; its creation where none is recorded), with its id to break ties: the order of
    starts, not of creation, which a queue may release out of order."""
    began = record.start_time if record.start_time is not None else record.create_timestamp.timestamp()
    return began, record.dagster_run.run_id


CLAIMS_FOLDER = "coworkenv-partition-claims"


def claim_partition(instance: dg.DagsterInstance, run_id: str, partition: str) -> dg.DagsterRun | None:
    """The run that holds `partition` (a step of `run_id` must stop), or None once `run_id` holds it.

    `earlier_run_of_partition` orders runs by their recorded starts, which are the times their RUN_START events
    occurred, not when their writes landed: two runs launched in one instant (two processes waiting on one SQLite
    instance's lock in turn), the later-started one's step could look while the other did not yet read as started and
    go on, and the other's step then saw it begin later and went on too. A step that goes on now also claims the
    partition for its run, in a file of the instance's folder read and written under an exclusive lock, and a step of
    another run stops while the claiming run is alive, whichever began first; the claim of a run that ended (or whose
    process is gone) holds nothing. Where the folder cannot be written or locked (a read-only or network instance
    folder), the starts alone decide, as before."""
    claims = _claim_file(instance, partition)
    if claims is None:
        return earlier_run_of_partition(instance, run_id, partition)
    try:
        try:
            fcntl.flock(claims, fcntl.LOCK_EX)  # held for the few reads below
        except OSError:
            return earlier_run_of_partition(instance, run_id, partition)
        claimed = _claim(claims)
        if claimed == run_id:
            return None  # this run's own claim (an earlier step of it went on): it holds the partition
        holder = _alive(instance, claimed)
        if holder is None:
            holder = earlier_run_of_partition(instance, run_id, partition)
        if holder is None:
            os.ftruncate(claims, 0)
            os.pwrite(claims, f"{run_id}\n".encode(), 0)  # in place: a rename would leave the lock on the old file
        return holder
    finally:
        os.close(claims)  # releases the lock


def _claim_file(instance: dg.DagsterInstance, partition: str) -> int | None:
    """The partition's claim file opened for reading and writing (made where missing), or None where it cannot be."""
    try:
        folder = Path(instance.root_directory) / CLAIMS_FOLDER
        folder.mkdir(exist_ok=True)
        name = hashlib.sha256(partition.encode()).hexdigest()[:32]  # any partition key, one file name
        return os.open(folder / name, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except (OSError, AttributeError, NotImplementedError):
        return None


def _claim(claims: int) -> str:
    """The run id the claim file names ("" where none: nothing claimed yet, a claim cut short by a kill mid-write)."""
    try:
        return os.pread(claims, 200, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def _alive(instance: dg.DagsterInstance, run_id: str) -> dg.DagsterRun | None:
    """Run `run_id` while it is alive; None where there is none, or it ended, or its process is gone."""
    run = instance.get_run_by_id(run_id) if run_id else None
    if run is None or run.status not in ALIVE or run_is_orphaned(instance, run):
        return None
    return run
