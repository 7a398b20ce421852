"""The runtime: turns, notifications, conditions, limits and dynamics as an agent experiences them."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from coworkenv import Action, Env, NoopPolicy, OraclePolicy, run_episode
from coworkenv.env import AGENT_INSTRUCTIONS
from coworkenv.examples import load_example
from coworkenv.world import parse_time

MARCUS = "marcus.reed@brightline.test"
GRACE = "grace.liu@quillpoint.test"


def _env(name: str, max_steps: int = 60) -> Env:
    env = Env(load_example(name), max_steps=max_steps)
    env.reset()
    return env


def _call(env: Env, name: str, args: dict[str, Any] | None = None) -> Any:
    return orjson.loads(env.step(Action.call(name, args or {})).messages[0]["content"])


def _payment_lines(env: Env, level: str = "ERROR") -> list[dict[str, Any]]:
    return [r for r in env.state.to_wire()["apps"]["logs"]["lines"] if r["service"] == "svc-payments" and r["level"] == level]


def test_reset_returns_system_and_first_user_message_and_tools() -> None:
    env = Env(load_example("incident_rollback"))
    messages, info = env.reset()
    assert [m["role"] for m in messages] == ["system", "system", "user"]
    assert messages[0]["content"] == AGENT_INSTRUCTIONS  # the same for every env: a prefix the cache reuses
    assert "Maya Chen" in messages[1]["content"] and "2026-03-02T09:00:00Z" in messages[1]["content"]
    assert messages[2]["content"].startswith("Jon mailed me")
    assert info["env_id"] == env.spec.id and len(info["tools"]) == len(env.spec.tools)


def test_user_turns_are_delivered_when_the_agent_ends_its_turn() -> None:
    env = _env("incident_rollback")
    _call(env, "services_rollback_config", {"service": "svc-payments", "to_version": 3})
    assert env.turn == 0
    result = env.step(Action.say("Rolled back payments to v3; the failing request was req-7f3a91."))
    assert env.turn == 1 and not env.done
    (user,) = result.messages
    assert user["role"] == "user" and user["content"].startswith("Jon says checkout errors are back")
    assert [r.text for r in env.replies] == ["Rolled back payments to v3; the failing request was req-7f3a91."]
    final = env.step(Action.say("Done."))
    assert env.done and final.terminated and not final.truncated
    assert final.reward == env.score().score
    roles = [m["role"] for m in env.messages]
    assert roles == ["system", "system", "user", "assistant", "tool", "assistant", "user", "assistant"]


def test_silent_change_is_visible_only_through_tools() -> None:
    env = _env("incident_rollback")
    _call(env, "services_rollback_config", {"service": "svc-payments", "to_version": 3})
    (user,) = env.step(Action.say("Fixed.")).messages
    assert "Notification" not in user["content"] and "v5" not in user["content"]
    service = _call(env, "services_get_service", {"service": "svc-payments"})
    assert service["config_version"] == 5 and service["status"] == "degraded"


def test_announced_change_shows_a_notification() -> None:
    env = _env("meeting_reschedule")
    _call(env, "mail_send", {"to": [MARCUS], "subject": "Roadmap review", "body": "Moving it to Wednesday."})
    (user,) = env.step(Action.say("Mailed Marcus.")).messages
    assert user["content"].startswith("[Notification 2026-04-13T08:15:30Z] New mail from Marcus Reed")


def test_after_call_condition_ends_the_episode_when_unmet() -> None:
    env = _env("meeting_reschedule")
    _call(env, "mail_save_draft", {"to": [MARCUS], "subject": "Roadmap review", "body": "Moving it."})
    result = env.step(Action.say("Drafted a note to Marcus."))
    assert env.done and result.messages == [] and env.turn == 0
    assert not env.score().passed


def test_step_limit_truncates_the_episode() -> None:
    env = _env("incident_rollback", max_steps=3)
    for _ in range(3):
        result = env.step(Action.call("services_list_services"))
    assert env.done and env.truncated and result.truncated and not result.terminated
    assert result.reward == env.score().score
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(Action.say("one more"))
    episode = run_episode(Env(load_example("incident_rollback"), max_steps=2), OraclePolicy(load_example("incident_rollback")))
    assert episode.truncated and episode.steps == 2 and not episode.result.passed


def test_gymnasium_style_unpacking() -> None:
    env = _env("incident_rollback")
    obs, reward, terminated, truncated, info = env.step(Action.call("services_list_services"))
    assert obs[0]["role"] == "tool" and reward == 0.0 and not terminated and not truncated and info == {"turn": 0}


def test_reset_returns_to_the_initial_state_after_an_episode() -> None:
    spec = load_example("report_from_files")
    env = Env(spec)
    first = run_episode(env, OraclePolicy(spec))
    assert env.state.content_hash() != env.initial_hash
    env.reset()
    assert env.state.content_hash() == env.initial_hash
    assert env.audit == [] and env.replies == [] and env.turn == 0
    again = run_episode(env, OraclePolicy(spec))
    assert again.final_hash == first.final_hash and again.result.score == 1.0
    assert run_episode(env, NoopPolicy()).result.score < 1.0


# -- dynamics ----------------------------------------------------------------------------------------------------
def test_error_stream_runs_while_the_bad_config_is_active_and_rollback_stops_it() -> None:
    env = _env("incident_rollback")
    start = len(_payment_lines(env))
    for _ in range(8):  # 8 calls x 30 s: the stream writes one ERROR line every 120 s
        _call(env, "services_list_services")
    during = len(_payment_lines(env))
    assert during == start + 2
    _call(env, "services_rollback_config", {"service": "svc-payments", "to_version": 3})
    assert _call(env, "services_get_service", {"service": "svc-payments"})["status"] == "healthy"
    recovery = _call(env, "logs_search", {"service": "svc-payments", "contains": "back to normal"})
    assert len(recovery) == 1 and recovery[0]["level"] == "INFO"
    for _ in range(20):
        _call(env, "services_list_services")
    assert len(_payment_lines(env)) == during


def test_restart_without_the_fix_keeps_the_errors() -> None:
    env = _env("incident_rollback")
    _call(env, "services_restart", {"service": "svc-payments"})
    warn = _payment_lines(env, "WARN")
    assert [w["message"] for w in warn] == ["restart complete; db pool exhausted again (size=5)"]
    before = len(_payment_lines(env))
    for _ in range(8):
        _call(env, "services_list_services")
    assert len(_payment_lines(env)) == before + 2
    assert _call(env, "services_get_service", {"service": "svc-payments"})["status"] == "degraded"


def test_scheduled_event_fires_at_its_clock_time() -> None:
    env = _env("report_from_files")
    attachments = ["reports/w14.csv"]
    _call(env, "files_write_file", {"path": attachments[0], "content": "priority,tickets\np1,4\n"})
    _call(env, "mail_send", {"to": [GRACE], "subject": "Weekly support report, week 14", "body": "Attached.",
                             "attachments": attachments})
    rows = env.state.table("mail", "messages")
    assert "msg-grace-followup" not in rows
    due = parse_time("2026-04-06T09:30:00Z")
    seen_before = seen_after = False
    while env.state.clock < due + 120:
        env.dynamics.advance(30)  # what the runtime does after each tool call
        arrived = "msg-grace-followup" in rows
        assert arrived is (env.state.clock >= due)
        seen_before |= not arrived
        seen_after |= arrived
    assert seen_before and seen_after
    followup = rows.get("msg-grace-followup")
    assert followup is not None and followup.sent_at == "2026-04-06T09:30:00Z" and followup.folder == "inbox"


def test_scheduled_event_with_an_unmet_condition_does_not_fire() -> None:
    env = _env("report_from_files")
    env.step(Action.say("I'll do it later."))
    assert env.done
    env.dynamics.advance(7200)
    assert "msg-grace-followup" not in env.state.table("mail", "messages")


def test_delayed_reply_arrives_n_minutes_after_the_mail() -> None:
    env = _env("meeting_reschedule")
    sent = _call(env, "mail_send", {"to": [MARCUS], "subject": "Roadmap review moved", "body": "Wednesday 14:00 UTC."})
    sent_at = parse_time(sent["sent_at"])
    inbox = env.state.table("mail", "messages")
    while env.state.clock < sent_at + 600:
        assert "msg-marcus-re-roadmap" not in inbox
        _call(env, "calendar_find_events", {"query": "roadmap"})
    reply = inbox.get("msg-marcus-re-roadmap")
    assert reply is not None and parse_time(reply.sent_at) == sent_at + 600
    unread = _call(env, "mail_list_messages", {"unread_only": True})
    assert "msg-marcus-re-roadmap" in [m["id"] for m in unread]
