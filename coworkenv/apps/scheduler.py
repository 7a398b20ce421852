"""Scheduler: cron-like jobs with a schedule, an enabled flag, tags and the outcome of their last run, and the
history of their runs."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Kept, Key, Order, Record, Words

RunStatus = Literal["ok", "failed", "never", "stopped"]  # stopped: ended by hand before it finished
# Cron fields: minute, hour, day of month, month, day of week (0 or 7 is Sunday).
_FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 7))


class Job(Record):
    name: str
    schedule: str  # five cron fields, e.g. "0 3 * * 1-5" (any text when written `as_written`)
    command: str
    owner: str = ""
    enabled: bool = True
    last_run: str | None = None
    last_status: RunStatus = "never"
    last_output: str = ""
    tags: list[str] = []
    next_run: str | None = None
    notes: str = ""  # free text: what the job does, what it depends on, why it was disabled
    # The id shown and looked up, where a service numbering new jobs by their count hands a held one out again
    # (`create_job`'s id_prefix): calls reach the first job holding it; None: the record's id.
    shown_id: str | None = None

    shown_when_set = ("shown_id",)  # in results only when set (a job an imported service made)


class JobRun(Record):
    """One past run of a job."""

    job: str
    at: str  # ISO-8601 UTC
    status: RunStatus
    duration_seconds: int | float | None = None
    output: str = ""  # the error of a failed run, or notes on it


class SchedulerState(AppState):
    jobs: list[Job] = []
    runs: list[JobRun] = []
    kept: list[Kept] = []  # fields a scheduler service keeps as written (an imported task's tools only)


def check_schedule(schedule: str) -> str:
    """`schedule` normalized to single spaces, or a ToolError naming the bad cron field."""
    parts = schedule.split()
    if len(parts) != 5:
        raise ToolError(f"schedule {schedule!r} needs 5 cron fields (minute hour day month weekday), e.g. '30 2 * * *'")
    for part, (what, lo, hi) in zip(parts, _FIELDS, strict=True):
        for item in part.split(","):
            base, _, step = item.partition("/")
            if step and not (step.isdigit() and int(step) > 0):
                raise ToolError(f"bad step {step!r} in the {what} field of {schedule!r}")
            if base == "*":
                continue
            bounds = base.split("-")
            if len(bounds) > 2 or not all(b.isdigit() and lo <= int(b) <= hi for b in bounds):
                raise ToolError(f"bad {what} {base!r} in {schedule!r}; use * or numbers {lo}-{hi}, ranges a-b, lists a,b")
    return " ".join(parts)


class SchedulerTools(Toolkit):
    app = "scheduler"

    @read
    @service_args("stored_order", "whole")
    def list_jobs(
        self, query: str = "", enabled: bool | None = None, last_status: RunStatus | None = None, limit: int = 50,
        tag: str | None = None, stored_order: bool = False, whole: bool = False,
    ) -> list[dict[str, Any]]:
        """List jobs sorted by name.

        Args:
            query: Words that must all occur in name, command or owner.
            enabled: Only enabled (true) or disabled (false) jobs.
            last_status: Only jobs whose last run ended so: ok, failed or never.
            limit: Maximum number of jobs.
            tag: Only jobs with this tag.
            stored_order: In the order the jobs are held (added), not by name.
            whole: Each job with its next run and tags too, as a scheduler service's summary shows them (and the
                id it is shown under, where that is not its own: see create_job's id_prefix).
        """
        table = self.world.table("scheduler", "jobs")
        sets = [
            table.key("enabled").ids(enabled) if enabled is not None else None,
            table.key("status").ids(last_status) if last_status is not None else None,
            table.key("tag").ids(tag) if tag is not None else None,
        ]
        fields = ("id", "name", "schedule", "enabled", "last_run", "last_status",
                  *(("next_run", "tags", "shown_id") if whole else ()))
        return dump_many(table.select(None if stored_order else "name", words=("text", query), sets=sets,
                                      limit=clamp(limit)), *fields)

    @read
    def get_job(self, job_id: str) -> dict[str, Any]:
        """Get a job with its command, last output and its 10 latest runs, newest first (when it has a history).

        Args:
            job_id: Job id.
        """
        job, runs = self._job(job_id), self.job_history(job_id)
        return {**dump(job), "runs": runs} if runs else dump(job)

    @read
    @service_args("stored_order", "with_id")
    def job_history(self, job_id: str, limit: int = 10, stored_order: bool = False,
                    with_id: bool = False) -> list[dict[str, Any]]:
        """A job's past runs, newest first.

        Args:
            job_id: Job id.
            limit: Maximum number of runs.
            stored_order: In the order the runs are held (a service's history as it lists it), not newest first.
            with_id: Each run with its id (a service answering its own history entries, by run).
        """
        job = self._job(job_id)
        table = self.world.table("scheduler", "runs")
        runs = table.select(None if stored_order else "at", sets=[table.key("job").ids(job.id)],
                            reverse=not stored_order, limit=clamp(limit))
        return dump_many(runs, *(("id",) if with_id else ()), "at", "status", "duration_seconds", "output")

    @write
    @service_args("as_written", "id_prefix")
    def create_job(self, name: str, schedule: str, command: str, enabled: bool = True,
                   tags: list[str] | None = None, as_written: bool = False,
                   id_prefix: str | None = None) -> dict[str, Any]:
        """Schedule a new job.

        Args:
            name: Job name (unique).
            schedule: Five cron fields, e.g. '0 3 * * 1-5' (03:00 UTC on weekdays).
            command: What the job runs.
            enabled: Start enabled.
            tags: Labels of the job.
            as_written: Keep the schedule as written, any text, and a name another job has too, as a scheduler
                service that checks neither does (else a schedule must be five cron fields and a name unique).
            id_prefix: Number the new job as a scheduler service numbering by count does: the prefix, then the
                count of jobs held plus one in three digits (JOB-008 after seven), shown so even where a job holds
                that id already (after a delete: calls then reach the job holding it first); its record's id is
                the next number free.
        """
        if not as_written and self.world.table("scheduler", "jobs").key("named").ids(name):
            raise ToolError(f"a job named {name!r} exists already; use scheduler_update_job")
        jobs = self.world.table("scheduler", "jobs")
        number = len(jobs) + 1
        while id_prefix is not None and f"{id_prefix}{number:03d}" in jobs:
            number += 1
        job_id = f"{id_prefix}{number:03d}" if id_prefix is not None else self.world.new_id("job", "scheduler", "jobs")
        counted = f"{id_prefix}{len(jobs) + 1:03d}" if id_prefix is not None else job_id
        job = Job(id=job_id, name=name,
                  schedule=schedule if as_written else check_schedule(schedule),
                  command=command, owner=self.world.user or "", enabled=enabled, tags=list(tags or []),
                  shown_id=counted if counted != job_id else None)
        self.put("jobs", job)
        return dump(job)

    @write
    @service_args("as_written", "whole")
    def update_job(self, job_id: str, schedule: str | None = None, enabled: bool | None = None,
                   name: str | None = None, command: str | None = None, tags: list[str] | None = None,
                   as_written: bool = False, whole: bool = False) -> dict[str, Any]:
        """Change a job's schedule, name, command or tags, or enable or disable it.

        Args:
            job_id: Job id.
            schedule: New five-field cron schedule.
            enabled: True to enable, False to disable.
            name: New name (unique).
            command: New command.
            tags: New tags (replacing the old ones).
            as_written: Keep the schedule as written, any text, and a name another job has too (see
                scheduler_create_job).
            whole: Answer the job whole, as a scheduler service that answers the record it changed does (else its
                id, name, schedule, state and the fields changed).
        """
        job = self._job(job_id)
        update: dict[str, Any] = {}
        if schedule is not None:
            update["schedule"] = schedule if as_written else check_schedule(schedule)
        if enabled is not None:
            update["enabled"] = enabled
        if name is not None and name != job.name:
            if not as_written and self.world.table("scheduler", "jobs").key("named").ids(name):
                raise ToolError(f"a job named {name!r} exists already")
            update["name"] = name
        if command is not None:
            update["command"] = command
        if tags is not None:
            update["tags"] = list(tags)
        updated = job.model_copy(update=update)
        self.put("jobs", updated)
        if whole:
            return dump(updated)
        return dump(updated, "id", "name", "schedule", "enabled", *(k for k in ("command", "tags") if k in update))

    @write
    @service_args("with_job")
    def delete_job(self, job_id: str, with_job: bool = False) -> dict[str, Any]:
        """Delete a job (its run history stays).

        Args:
            job_id: Job id.
            with_job: Answer the deleted job too (under `job`), as a scheduler service that answers the record it
                removed does.
        """
        job = self._job(job_id)
        self.world.table("scheduler", "jobs").delete(job.id)
        return {"id": job_id, "name": job.name, "deleted": True, **({"job": dump(job)} if with_job else {})}

    @write
    def run_now(self, job_id: str) -> dict[str, Any]:
        """Run an enabled job once now (its last run becomes now).

        Args:
            job_id: Job id.
        """
        job = self._job(job_id)
        if not job.enabled:
            raise ToolError(f"job {job.name} is disabled; enable it with scheduler_update_job first")
        updated = job.model_copy(update={"last_run": self.world.now_iso, "last_status": "ok", "last_output": "done"})
        self.put("jobs", updated)
        return dump(updated, "id", "name", "last_run", "last_status")

    def _job(self, job_id: str) -> Job:
        return self.require_shown("jobs", job_id, "job", "use scheduler_list_jobs")  # type: ignore[no-any-return]


APP = AppDef(
    "scheduler", SchedulerState, SchedulerTools, "scheduled jobs: cron schedules, enabled flags, last runs",
    indexes={
        "jobs": {
            "text": Words(lambda j: (j.name, j.command, j.owner)),
            "enabled": Key(lambda j: j.enabled),
            "status": Key(lambda j: j.last_status),
            "named": Key(lambda j: j.name),
            "name": Order(lambda j: j.name),
            "tag": Key(lambda j: j.tags, multi=True),
            "shown": Key(lambda j: j.shown_id or j.id),  # the id calls reach it by (`require_shown`)
        },
        "runs": {"job": Key(lambda r: r.job), "at": Order(lambda r: (r.at, r.id))},
    },
)
