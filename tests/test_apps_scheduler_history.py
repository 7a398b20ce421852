"""The scheduler's run history, tags, fuller updates and deletes."""

from __future__ import annotations

from tests.test_apps_productivity import _box, _error, _ok

JOBS = {"scheduler": {
    "jobs": [
        {"id": "job-1", "name": "backup", "schedule": "0 2 * * *", "command": "backup.sh", "tags": ["db"]},
        {"id": "job-2", "name": "export", "schedule": "30 6 * * *", "command": "export.sh", "last_status": "stopped"},
    ],
    "runs": [
        {"id": "r1", "job": "job-1", "at": "2026-03-01T02:00:00Z", "status": "ok", "duration_seconds": 340},
        {"id": "r2", "job": "job-1", "at": "2026-02-28T02:00:00Z", "status": "failed", "output": "disk full"},
        {"id": "r3", "job": "job-2", "at": "2026-03-01T06:30:00Z", "status": "stopped"},
    ],
}}


def test_history_is_newest_first_per_job_and_comes_with_the_job() -> None:
    box = _box(**JOBS)
    history = _ok(box, "scheduler_job_history", job_id="job-1")
    assert [(r["at"], r["status"], r["output"]) for r in history] == [
        ("2026-03-01T02:00:00Z", "ok", ""), ("2026-02-28T02:00:00Z", "failed", "disk full")]
    assert _ok(box, "scheduler_job_history", job_id="job-1", limit=1) == history[:1]
    assert _ok(box, "scheduler_get_job", job_id="job-1")["runs"] == history
    assert "job-9" in _error(box, "scheduler_job_history", job_id="job-9")
    assert [j["id"] for j in _ok(box, "scheduler_list_jobs", last_status="stopped")] == ["job-2"]
    assert [j["id"] for j in _ok(box, "scheduler_list_jobs", tag="db")] == ["job-1"]


def test_a_job_without_runs_reads_as_before() -> None:
    box = _box(scheduler={"jobs": JOBS["scheduler"]["jobs"]})
    assert "runs" not in _ok(box, "scheduler_get_job", job_id="job-2")


def test_updates_rename_retag_and_change_the_command_and_delete_keeps_the_history() -> None:
    box = _box(**JOBS)
    out = _ok(box, "scheduler_update_job", job_id="job-2", name="sales_export", command="export2.sh", tags=["sales"])
    assert (out["name"], out["command"], out["tags"]) == ("sales_export", "export2.sh", ["sales"])
    assert "exists already" in _error(box, "scheduler_update_job", job_id="job-2", name="backup")
    made = _ok(box, "scheduler_create_job", name="sync", schedule="*/5 * * * *", command="sync.sh", tags=["crm"])
    assert made["tags"] == ["crm"]
    assert _ok(box, "scheduler_delete_job", job_id="job-1") == {"id": "job-1", "name": "backup", "deleted": True}
    assert "job-1" not in {j["id"] for j in _ok(box, "scheduler_list_jobs")}
    assert len(list(box.world.table("scheduler", "runs"))) == 3
