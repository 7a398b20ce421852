"""A frame that counts a job's own record: the live system has a job due on the clock just after the reference is
done that writes a record of its own (the nightly job's log line, the standup bot's post in a channel), and the
task's frame ("nothing else changed") does not allow that record. The reference ends before the job runs and passes;
an honest agent that checks its work a few more times after its fix (a minute more than the reference) ends after
the job's record exists, and the frame fails it for a change the world made, not the agent: the verdict depends on
the agent's pace. The sound twin's frame allows just that record (the job's service's log lines, the bot's post)."""

from __future__ import annotations

from typing import Any

from coworkenv.world._time import format_time
from tests.defects._core import CorpusError, Defect, Spec, frame
from tests.defects.solved_by_clock import _LATER_TICKS, _end_clock
from tests.defects.undone_by_clock import _checks_again

CLASS = "frame_counts_job"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a rule runs on the clock, replay the reference with a quiet read repeated after each turn's last write, "
    "frames counted: a frame the reference passes that then fails counts a record the world's job wrote"
)
_BOT_POST = "bot-standup-reminder"


def _service(spec: Spec) -> str:
    services = spec["world"]["apps"].get("services", {}).get("services", [])
    return str(services[0]["id"]) if services else "scheduler"


def _log_job(spec: Spec) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the job's effect, the frame selector allowing it): a log line of the world's first service."""
    service = _service(spec)
    return ({"kind": "log", "service": service, "level": "INFO", "message": "nightly job ran; 0 records changed"},
            {"app": "logs", "table": "lines", "where": [{"field": "service", "value": service}]})


def _bot_post(spec: Spec) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the job's effect, the frame selector allowing it): the standup bot's post in the world's first channel."""
    channels = [c for c in spec["world"]["apps"].get("chat", {}).get("channels", []) if not c.get("is_dm")]
    if not channels:
        raise CorpusError(f"{spec['capability']}: the world has no chat channel")
    return ({"kind": "put_record", "app": "chat", "table": "messages", "record": {
        "id": _BOT_POST, "channel": channels[0]["id"], "sender": "standup-bot", "text": "Standup in 10 minutes.",
        "ts": "$now"}}, {"app": "chat", "table": "messages", "id": _BOT_POST})


def _job(spec: Spec, record: Any, allowed: bool) -> None:
    effect, selector = record(spec)
    check = frame(spec)
    if any(s["app"] == selector["app"] and not s.get("table") for s in check["rule"]["allow"]):
        raise CorpusError(f"{spec['capability']}: the frame already allows {selector['app']} whole")
    due = _end_clock(spec) + _LATER_TICKS * spec["world"]["tick_s"]
    spec["dynamics"]["rules"].append({
        "id": "job-writes", "on": {"kind": "at", "time": format_time(due)}, "when": [], "delay_s": 0, "once": True,
        "effects": [effect]})
    if allowed:
        check["rule"]["allow"].append(selector)


def _defect(name: str, base: str, record: Any, away: str) -> Defect:
    return Defect(CLASS, name, f"synth:{base}", away, breaks=lambda s: _job(s, record, False),
                  fix=lambda s: _job(s, record, True), witness=_checks_again, witness_kind="honest",
                  gate="mutations", code="pace_pinned")


_LOG = "is failed by the frame for checking its work once more: the nightly job's log line lands a minute after the reference"
_POST = "is failed by the frame for checking its work once more: the standup bot posts a minute after the reference"

DEFECTS = [
    _defect("nightly-log-after-triage", "ticket_triage_update@1", _log_job, _LOG),
    _defect("nightly-log-after-triage-2", "ticket_triage_update@2", _log_job, _LOG),
    _defect("nightly-log-after-pause", "scheduler_pause_failing_jobs@1", _log_job, _LOG),
    _defect("nightly-log-after-restock", "inventory_restock_policy@1", _log_job, _LOG),
    _defect("nightly-log-after-mail-triage", "inbox_triage_reply@1", _log_job, _LOG),
    _defect("nightly-log-after-reschedule", "reschedule_conflict@1", _log_job, _LOG),
    _defect("standup-post-after-handoff", "oncall_handoff@1", _bot_post, _POST),
    _defect("standup-post-after-follow-up", "delegate_and_follow_up@1", _bot_post, _POST),
    _defect("standup-post-after-reassignment", "adapt_announced_change@1", _bot_post, _POST),
    _defect("standup-post-after-reschedule", "reschedule_conflict@2", _bot_post, _POST),
    _defect("standup-post-after-handoff-2", "oncall_handoff@2", _bot_post, _POST),
    _defect("standup-post-after-follow-up-2", "delegate_and_follow_up@2", _bot_post, _POST),
]
