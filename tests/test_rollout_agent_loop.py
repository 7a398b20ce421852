"""The agent loop: hermes text and native tool calls, malformed calls as recoverable tool errors, stop conditions,
multi-turn from the trajectory's point of view, and a real HTTP round trip through OpenAICompatibleBackend."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from coworkenv.env import Env
from coworkenv.examples import load_example
from coworkenv.llm import (
    LOCAL_EXHAUSTION,
    LLMError,
    LLMRequest,
    LLMResponse,
    LLMStats,
    OpenAICompatibleBackend,
    ToolCall,
)
from coworkenv.rollout import (
    REPLY_TRUNCATED,
    InfrastructureFailure,
    OracleTeacher,
    error_kinds,
    is_infrastructure_failure,
    run_agent,
    split_outcomes,
)
from coworkenv.spec import EnvSpec
from tests.support.fake_openai_server import FakeOpenAIServer

Reply = LLMResponse | Callable[[LLMRequest], LLMResponse]


def say(text: str, tokens: tuple[int, int] = (10, 5)) -> LLMResponse:
    return LLMResponse(text, [], tokens[0], tokens[1], "stop", False, "scripted")


def call(name: str, arguments: dict[str, Any], call_id: str = "", content: str | None = None) -> LLMResponse:
    return LLMResponse(content, [ToolCall(call_id or f"native_{name}", name, json.dumps(arguments))], 12, 6,
                       "tool_calls", False, "scripted")


class ScriptedBackend:
    """An in-process LLMBackend answering with canned responses in order (the last one repeats)."""

    def __init__(self, replies: Sequence[Reply], name: str = "scripted") -> None:
        self.replies = list(replies)
        self.requests: list[LLMRequest] = []
        self.name = name
        self.stats = LLMStats()

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        reply = self.replies[min(len(self.requests) - 1, len(self.replies) - 1)]
        if isinstance(reply, Exception):
            raise reply
        return reply(request) if callable(reply) else reply

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        raise NotImplementedError


@pytest.fixture(scope="module")
def incident() -> EnvSpec:
    return load_example("incident_rollback")


HERMES = (
    "Let me look at the logs and the config history.\n"
    '<tool_call>{"name": "logs_search", "arguments": {"service": "svc-payments", "min_level": "ERROR"}}</tool_call>\n'
    '<tool_call>{"name": "services_config_history", "arguments": {"service": }</tool_call>'
)


def test_hermes_then_native_calls_with_a_malformed_call_the_model_recovers_from(incident: EnvSpec) -> None:
    backend = ScriptedBackend([
        say(HERMES, (100, 40)),
        call("services_config_history", {"service": "svc-payments"}),
        call("services_rollback_config", {"service": "svc-payments", "to_version": 3}),
        say("The failing request was req-7f3a91; I rolled svc-payments back to config v3."),
        say("Nothing more to do."),
    ])
    record = run_agent(Env(incident), backend, sampling={"temperature": 0.3, "seed": 7})

    # The hermes block ran, the malformed one became a failed, audited call with a readable error.
    first = record.steps[0]
    assert first.tool_calls == 2 and first.tool_errors == 1 and len(first.parse_errors) == 1
    assert [(e.tool, e.ok) for e in record.audit[:2]] == [("logs_search", True), ("services_config_history", False)]
    error_message = record.messages[first.message_index + 2]
    assert error_message["role"] == "tool" and "could not parse this tool call" in error_message["content"]
    # The model saw that error in its next request, and its native retry succeeded.
    seen = [m.get("content") or "" for m in backend.requests[1].messages if m["role"] == "tool"]
    assert any("could not parse" in text for text in seen)
    assert [(e.tool, e.ok) for e in record.audit[2:]] == [("services_config_history", True),
                                                          ("services_rollback_config", True)]
    # Every tool call has exactly one tool message answering it.
    call_ids = [c["id"] for m in record.messages for c in m["tool_calls"]]
    answered = [m["tool_call_id"] for m in record.messages if m["role"] == "tool"]
    assert sorted(call_ids) == sorted(answered) and len(set(call_ids)) == len(call_ids)
    assert record.malformed_calls == 1 and record.tool_errors == 1
    assert record.turns == "multi" and record.user_turns == 2 and record.stop_reason == "done"
    assert record.sampling == {"temperature": 0.3, "max_tokens": 1024, "seed": 7}
    assert all(r.temperature == 0.3 and r.seed == 7 for r in backend.requests)
    assert record.tokens.agent_prompt == 100 + 12 * 2 + 10 * 2 and record.tokens.user_prompt == 0
    # Requests never carry an empty tool_calls list (OpenAI rejects it).
    assert all(m.get("tool_calls") != [] for r in backend.requests for m in r.messages)
    assert record.checks and not record.passed  # no ticket, no announcement: the verifier says so


def test_step_limit_and_token_budget_stop_the_episode(incident: EnvSpec) -> None:
    looping = ScriptedBackend([call("services_list_services", {})])
    record = run_agent(Env(incident), looping, max_steps=5)
    assert record.stop_reason == "max_steps" and record.truncated and len(record.steps) == 5

    hungry = ScriptedBackend([LLMResponse(None, [ToolCall("c", "services_list_services", "{}")], 600, 100,
                                          "tool_calls", False, "scripted")])
    record = run_agent(Env(incident), hungry, max_tokens_total=1000)
    assert record.stop_reason == "token_budget" and len(record.steps) == 2
    assert record.tokens.agent_prompt + record.tokens.agent_completion == 1400


def test_a_backend_failure_ends_the_episode_with_a_record(incident: EnvSpec) -> None:
    failing = ScriptedBackend([call("services_list_services", {}), LLMError("unavailable", "server down")])  # type: ignore[list-item]
    record = run_agent(Env(incident), failing)
    assert record.stop_reason == "llm_error" and "server down" in record.error and len(record.steps) == 1
    assert not record.passed


def test_a_cut_off_reply_is_its_own_stop_reason_and_is_never_played(incident: EnvSpec) -> None:
    empty = ScriptedBackend([LLMResponse(None, [], 30, 64, "length", False, "scripted")])
    record = run_agent(Env(incident), empty, sampling={"max_tokens": 64})
    assert record.stop_reason == REPLY_TRUNCATED and record.truncated and not record.passed
    assert "cut off at max_tokens=64" in record.error and record.replies == []
    assert record.steps[-1].finish_reason == "length" and record.tokens.agent_completion == 64
    assert not is_infrastructure_failure(record)  # the server worked: the model's failure

    half_sentence = ScriptedBackend([call("services_list_services", {}),
                                     LLMResponse("The failing request is req-", [], 30, 64, "length", False, "s")])
    record = run_agent(Env(incident), half_sentence)
    assert record.stop_reason == REPLY_TRUNCATED and len(record.steps) == 2
    assert record.replies == [] and record.messages[-1]["content"] == "The failing request is req-"

    # Whole calls before the cut are played; the episode goes on.
    whole_call = ScriptedBackend([LLMResponse(None, [ToolCall("c1", "services_list_services", "{}")], 30, 64,
                                              "length", False, "s"), say("Done.")])
    record = run_agent(Env(incident), whole_call)
    assert record.stop_reason == "done" and record.steps[0].tool_calls == 1


def test_server_failures_are_infrastructure_failures(incident: EnvSpec) -> None:
    failing = ScriptedBackend([LLMError("timeout", "no answer within 1s")])  # type: ignore[list-item]
    lost = run_agent(Env(incident), failing)
    ran = run_agent(Env(incident), ScriptedBackend([say("Done.")]))
    assert split_outcomes([ran, lost]) == ([ran], [lost])
    assert error_kinds([lost]) == {"timeout": 1}
    failure = InfrastructureFailure("http://h:1/v1 (model 'm')", [lost], 2)
    assert "the LLM server http://h:1/v1 (model 'm') failed 1 of 2 episodes after its retries (timeout 1)" in str(
        failure)
    assert "check the server" in str(failure)
    # When this process ran out of descriptors, the server is not blamed.
    local = run_agent(Env(incident), ScriptedBackend([LLMError(  # type: ignore[list-item]
        "unavailable", f"connection failed (OSError: [Errno 24]) {LOCAL_EXHAUSTION} no file descriptor left")]))
    failure = InfrastructureFailure("http://h:1/v1 (model 'm')", [local], 1)
    assert "check the server" not in str(failure) and "ran out, not the server" in str(failure)


def _fake_model(body: dict[str, Any]) -> dict[str, Any]:
    """First a hermes tool call in text, then a native one, then a reply; driven by what the request holds."""
    messages = body["messages"]
    tool_results = sum(1 for m in messages if m["role"] == "tool")
    if tool_results == 0:
        return {"content": '<tool_call>{"name": "mail_search", "arguments": {"query": "checkout"}}</tool_call>'}
    if tool_results == 1:
        return {"content": None, "tool_calls": [{"id": "call_logs", "type": "function", "function": {
            "name": "logs_search", "arguments": json.dumps({"service": "svc-payments", "min_level": "ERROR"})}}]}
    return {"content": "The failing request is req-7f3a91."}


def test_agent_loop_over_http_against_the_fake_openai_server(incident: EnvSpec) -> None:
    with FakeOpenAIServer(responder=_fake_model) as server:
        backend = OpenAICompatibleBackend(server.url, "fake-model", max_retries=0)
        record = run_agent(Env(incident), backend, sampling={"temperature": 0.0, "max_tokens": 256})
        requests = server.stats()["requests"]
    assert [e.tool for e in record.audit] == ["mail_search", "logs_search"]
    assert all(e.ok for e in record.audit)
    assert record.stop_reason == "done" and requests == 4  # 3 steps in turn 1, one reply to turn 2
    assert record.model == "openai:fake-model" and record.tokens.agent_prompt > 0
    assert "req-7f3a91" in record.replies[0].text
    check = {c.id: c.passed for c in record.checks}
    assert check["traced-request"] and not check["config-rolled-back"]


def _without_second_turn(spec: EnvSpec) -> EnvSpec:
    data = spec.model_dump(mode="json", by_alias=True)
    data["turns"], data["reference"] = data["turns"][:1], data["reference"][:1]
    data["checks"] = [c for c in data["checks"] if c["id"] not in ("regression-fixed", "ticket-noted")]
    return EnvSpec.model_validate(data)


def test_multi_turn_changes_reach_the_agent_only_through_tools_or_a_notification(incident: EnvSpec) -> None:
    silent = OracleTeacher(0).run(incident)[0]
    users = [i for i, m in enumerate(silent.messages) if m["role"] == "user"]
    assert silent.turns == "multi" and len(users) == 2
    second = silent.messages[users[1]]["content"]
    assert "[Notification" not in second and "v5" not in second
    # The silent config change (svc-payments@5) first shows up in a tool result after the second user turn.
    first_seen = next(i for i, m in enumerate(silent.messages) if "svc-payments@5" in m["content"])
    assert first_seen > users[1] and silent.messages[first_seen]["role"] == "tool"

    announced = OracleTeacher(0).run(load_example("meeting_reschedule"))[0]
    users = [m["content"] for m in announced.messages if m["role"] == "user"]
    assert announced.turns == "multi" and users[1].startswith("[Notification ")
    assert "[Notification" not in users[0]

    single = OracleTeacher(0).run(_without_second_turn(incident))[0]
    assert single.turns == "single" and sum(m["role"] == "user" for m in single.messages) == 1 and single.passed


def test_an_overlong_conversation_stops_as_the_models_limit(incident: EnvSpec) -> None:
    full = ScriptedBackend([call("services_list_services", {}), LLMError("context_length", "does not fit")])  # type: ignore[list-item]
    record = run_agent(Env(incident), full)
    assert record.stop_reason == "context_length" and not is_infrastructure_failure(record)
