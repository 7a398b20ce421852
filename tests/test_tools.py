"""Tools: schemas, errors as observations, and the audit log."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator

from coworkenv import Action, Env, ToolCallRequest
from coworkenv.apps import TOOLS
from coworkenv.examples import load_example
from coworkenv.world import diff


def _env(name: str = "incident_rollback") -> Env:
    env = Env(load_example(name))
    env.reset()
    return env


def _observation(env: Env, name: str, arguments: dict[str, Any] | str | None = None) -> Any:
    result = env.step(Action.call(name, arguments))
    (message,) = result.messages
    assert message["role"] == "tool"
    return orjson.loads(message["content"])


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_tool_schema_is_valid_json_schema(name: str) -> None:
    schema = TOOLS[name].openai_schema()
    assert schema["type"] == "function"
    function = schema["function"]
    assert function["name"] == name
    assert function["description"]
    Draft202012Validator.check_schema(function["parameters"])
    assert function["parameters"]["type"] == "object"
    # Every parameter is documented from the docstring.
    for prop, body in function["parameters"].get("properties", {}).items():
        assert body.get("description"), f"{name}.{prop} has no description"


def test_tools_are_tagged_read_or_write() -> None:
    assert TOOLS["mail_send"].kind == "write"
    assert TOOLS["mail_search"].kind == "read"
    assert {d.kind for d in TOOLS.values()} == {"read", "write"}
    assert not any(d.kind == "write" for d in TOOLS.values() if d.app == "logs")


def test_schema_arguments_validate_a_reference_call() -> None:
    spec = load_example("meeting_reschedule")
    for turn in spec.reference:
        for step in turn.steps:
            if step.call is not None:
                params = TOOLS[step.call.name].openai_schema()["function"]["parameters"]
                Draft202012Validator(params).validate(step.call.arguments)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("services_get_service", {"service": 42}, "invalid arguments"),
        ("services_get_service", {}, "service: Field required"),
        ("services_get_service", {"service": "svc-payments", "extra": 1}, "extra"),
        ("services_get_service", {"service": "svc-nope"}, "no service with id 'svc-nope'; use services_list_services"),
        ("tickets_get", {"ticket_id": "OPS-999"}, "no ticket with id 'OPS-999'"),
        ("files_delete_file", {"path": "x.md"}, "unknown tool 'files_delete_file'"),
        ("teleport", {}, "unknown tool 'teleport'"),
        ("logs_search", '{"service": "svc-payments"', "arguments are not valid JSON"),
        ("logs_search", "[1, 2]", "arguments must be a JSON object"),
        ("services_rollback_config", {"service": "svc-payments", "to_version": 4}, "already runs config version 4"),
        ("tickets_update", {"ticket_id": "OPS-101", "status": "resolved"}, "cannot go from open to resolved"),
    ],
)
def test_bad_calls_are_error_observations_and_the_episode_continues(
    tool: str, arguments: Any, message: str
) -> None:
    env = _env()
    before = env.state.snapshot()
    observation = _observation(env, tool, arguments)
    assert set(observation) == {"error"}
    assert message in observation["error"]
    assert not env.done
    # A failed call changes nothing (the clock moves; the simulation may write log lines meanwhile).
    assert [c for c in diff(before, env.state.snapshot()) if c.app != "logs"] == []
    entry = env.audit[-1]
    assert not entry.ok and entry.error == observation["error"] and entry.result is None
    # The agent can read the error and recover with a valid call.
    assert _observation(env, "services_get_service", {"service": "svc-payments"})["config_version"] == 4


def test_allowed_transition_after_a_forbidden_one() -> None:
    env = _env()
    assert "error" in _observation(env, "tickets_update", {"ticket_id": "OPS-101", "status": "resolved"})
    assert _observation(env, "tickets_update", {"ticket_id": "OPS-101", "status": "in_progress"})["status"] == "in_progress"


def test_arguments_as_a_json_string_work_like_a_dict() -> None:
    env = _env()
    as_text = _observation(env, "logs_search", '{"service": "svc-payments", "min_level": "ERROR"}')
    env2 = _env()
    as_dict = _observation(env2, "logs_search", {"service": "svc-payments", "min_level": "ERROR"})
    assert as_text == as_dict
    assert env.audit[-1].args == {"service": "svc-payments", "min_level": "ERROR"}


def test_audit_log_records_every_call() -> None:
    env = _env()
    clock0 = env.state.now_iso
    hash0 = env.state.content_hash()
    env.step(Action(tool_calls=(
        ToolCallRequest("services_get_config", {"service": "svc-payments"}, "c1"),
        ToolCallRequest("services_rollback_config", {"service": "svc-payments", "to_version": 3}, "c2"),
        ToolCallRequest("tickets_get", {"ticket_id": "NOPE-1"}, "c3"),
    )))
    read, write, failed = env.audit
    assert [e.index for e in env.audit] == [0, 1, 2]
    assert (read.tool, read.args, read.ok, read.error) == ("services_get_config", {"service": "svc-payments"}, True, None)
    assert read.result["values"]["db_pool_size"] == 5
    assert read.time == clock0 and read.hash_before == hash0
    assert write.result == {"service": "svc-payments", "config_version": 3, "previous": 4}
    assert write.time > read.time
    assert read.hash_after == write.hash_before and write.hash_after == failed.hash_before
    assert failed.error is not None and "NOPE-1" in failed.error and failed.result is None
    assert failed.hash_after == env.state.content_hash()
    assert [m["tool_call_id"] for m in env.messages if m["role"] == "tool"] == ["c1", "c2", "c3"]
    assert _observation(env, "services_get_service", {"service": "svc-payments"})["config_version"] == 3  # the write took


def test_only_exposed_tools_are_offered() -> None:
    spec = load_example("incident_rollback")
    env = Env(spec)
    _, info = env.reset()
    assert [t["function"]["name"] for t in info["tools"]] == sorted(spec.tools)
    assert "files_delete_file" not in spec.tools
