"""The LLM interface without a network: request keys, tool-call parsing, config, the none and offline backends."""

from __future__ import annotations

import asyncio
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coworkenv.llm import (
    LLMBackend,
    LLMError,
    LLMRequest,
    LLMResponse,
    NoLLMBackend,
    OpenAICompatibleBackend,
    ToolCall,
    VLLMOfflineBackend,
    backend_from_config,
    parse_tool_calls,
)

MESSAGES = [{"role": "user", "content": "Reply to Ana about the outage."}]


# --- cache keys ---------------------------------------------------------------------------------


def test_cache_key_is_stable_and_depends_on_every_field() -> None:
    base = LLMRequest(messages=MESSAGES)
    assert base.cache_key("m") == LLMRequest(messages=[dict(MESSAGES[0])]).cache_key("m")
    variants = [
        LLMRequest(messages=[{"role": "user", "content": "other"}]),
        LLMRequest(messages=MESSAGES, tools=[{"type": "function", "function": {"name": "f"}}]),
        LLMRequest(messages=MESSAGES, json_schema={"type": "object"}),
        LLMRequest(messages=MESSAGES, temperature=0.7),
        LLMRequest(messages=MESSAGES, max_tokens=12),
        LLMRequest(messages=MESSAGES, seed=3),
    ]
    keys = {base.cache_key("m"), base.cache_key("other-model"), *(v.cache_key("m") for v in variants)}
    assert len(keys) == 2 + len(variants)


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=5))
def test_cache_key_ignores_dict_key_order(payload: dict[str, Any]) -> None:
    reversed_payload = dict(reversed(list(payload.items())))
    first = LLMRequest(messages=[{"role": "user", "content": "x", "meta": payload}])
    second = LLMRequest(messages=[{"role": "user", "content": "x", "meta": reversed_payload}])
    assert first.cache_key("m") == second.cache_key("m")


# --- tool-call parsing --------------------------------------------------------------------------


def test_native_tool_calls_win_over_text() -> None:
    native = [{"id": "call_1", "type": "function", "function": {"name": "send_mail", "arguments": '{"to": "ana"}'}}]
    text, calls, errors = parse_tool_calls('<tool_call>{"name": "other", "arguments": {}}</tool_call>', native)
    assert calls == [ToolCall(id="call_1", name="send_mail", arguments='{"to": "ana"}')]
    assert errors == []
    assert text is not None  # native calls leave the text alone


def test_native_tool_call_with_bad_arguments_becomes_an_error() -> None:
    native = [
        {"id": "a", "function": {"name": "ok_tool", "arguments": {"x": 1}}},
        {"id": "b", "function": {"name": "bad_tool", "arguments": "{not json"}},
        {"id": "c", "function": {"arguments": "{}"}},
    ]
    _, calls, errors = parse_tool_calls(None, native)
    assert [call.name for call in calls] == ["ok_tool"]
    assert json.loads(calls[0].arguments) == {"x": 1}
    assert len(errors) == 2
    assert "bad_tool" in errors[0] and "not valid JSON" in errors[0]
    assert "missing function name" in errors[1]


def test_hermes_text_tool_calls_are_parsed_and_removed_from_text() -> None:
    content = (
        "I'll check the logs first.\n"
        '<tool_call>\n{"name": "search_logs", "arguments": {"service": "api", "level": "error"}}\n</tool_call>\n'
        '<tool_call>{"name": "list_tickets", "parameters": {}}</tool_call>'
    )
    text, calls, errors = parse_tool_calls(content, None)
    assert text == "I'll check the logs first."
    assert [call.name for call in calls] == ["search_logs", "list_tickets"]
    assert json.loads(calls[0].arguments) == {"service": "api", "level": "error"}
    assert json.loads(calls[1].arguments) == {}
    assert errors == []
    assert len({call.id for call in calls}) == 2
    assert parse_tool_calls(content, [])[1] == calls  # deterministic ids, empty native list = fallback


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ('<tool_call>{"name": "f", "arguments": {"a": 1</tool_call>', "not valid JSON"),
        ('<tool_call>{"arguments": {}}</tool_call>', "missing 'name'"),
        ('<tool_call>["f", {}]</tool_call>', "expected an object"),
        ('<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>', "must be a JSON object"),
        ('<tool_call>{"name": "f", "arguments": "{\\"a\\": "}</tool_call>', "not valid JSON"),
        ('<tool_call>{"name": "f", "arguments": {"a": 1}}', "not closed"),
    ],
)
def test_malformed_hermes_calls_become_errors_not_exceptions(block: str, expected: str) -> None:
    content = f'Working on it. <tool_call>{{"name": "good", "arguments": {{}}}}</tool_call> {block}'
    text, calls, errors = parse_tool_calls(content, None)
    assert [call.name for call in calls] == ["good"]
    assert len(errors) == 1 and expected in errors[0], errors
    assert text == "Working on it."


def test_hermes_accepts_control_characters_inside_strings() -> None:
    _, calls, errors = parse_tool_calls('<tool_call>{"name": "f", "arguments": {"a": "x\ty"}}</tool_call>', None)
    assert errors == [] and json.loads(calls[0].arguments) == {"a": "x\ty"}


def test_plain_text_and_empty_content() -> None:
    assert parse_tool_calls("Just an answer.", None) == ("Just an answer.", [], [])
    assert parse_tool_calls(None, None) == (None, [], [])
    assert parse_tool_calls("", []) == (None, [], [])


@given(st.text(max_size=200))
def test_parse_tool_calls_never_raises(content: str) -> None:
    text, calls, errors = parse_tool_calls(content, None)
    assert text is None or isinstance(text, str)
    assert all(isinstance(call, ToolCall) for call in calls)
    assert all(isinstance(error, str) for error in errors)


# --- configuration and the none backend ---------------------------------------------------------


def test_backend_from_config_picks_each_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COWORKENV_LLM_URL", raising=False)
    monkeypatch.delenv("COWORKENV_LLM_MODEL", raising=False)
    assert isinstance(backend_from_config(None, None), NoLLMBackend)
    assert isinstance(backend_from_config("none", None), NoLLMBackend)
    offline = backend_from_config("vllm-offline", "/models/qwen")
    assert isinstance(offline, VLLMOfflineBackend) and offline.name == "vllm-offline:/models/qwen"
    http = backend_from_config("http://127.0.0.1:9/v1", "qwen3-8b")
    assert isinstance(http, OpenAICompatibleBackend) and http.name == "openai:qwen3-8b"
    for backend in (NoLLMBackend(), offline, http):
        assert isinstance(backend, LLMBackend)
    with pytest.raises(ValueError, match="use 'none', 'vllm-offline' or an http"):
        backend_from_config("openai", "m")
    with pytest.raises(ValueError, match="has scheme 'ftp': use http:// or https://"):
        backend_from_config("ftp://host", "m")
    with pytest.raises(ValueError, match="needs a model name"):
        backend_from_config("http://127.0.0.1:9", None)


def test_backend_from_config_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COWORKENV_LLM_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("COWORKENV_LLM_MODEL", "env-model")
    backend = backend_from_config(None, None)
    assert isinstance(backend, OpenAICompatibleBackend) and backend.model == "env-model"


def test_no_llm_backend_says_what_to_configure() -> None:
    backend = NoLLMBackend()
    with pytest.raises(LLMError) as info:
        asyncio.run(backend.complete(LLMRequest(messages=MESSAGES)))
    assert info.value.kind == "unavailable" and "procedural generation only" in str(info.value)
    results = backend.complete_batch([LLMRequest(messages=MESSAGES)] * 2)
    assert all(isinstance(r, LLMError) and r.kind == "unavailable" for r in results)
    assert backend.stats.failures == {"unavailable": 3}


# --- vLLM offline backend (the engine replaced by a stand-in; the real one runs in the slow test) ----


def test_vllm_offline_without_vllm_raises_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` fail
    backend = VLLMOfflineBackend("/models/qwen")
    (result,) = backend.complete_batch([LLMRequest(messages=MESSAGES)])
    assert isinstance(result, LLMError) and result.kind == "unavailable"
    assert "coworkenv[vllm]" in str(result)
    with pytest.raises(LLMError, match="coworkenv\\[vllm\\]"):
        asyncio.run(backend.complete(LLMRequest(messages=MESSAGES)))


class _FakeOutput:
    def __init__(self, text: str) -> None:
        completion = types.SimpleNamespace(text=text, token_ids=[1] * len(text.split()), finish_reason="stop")
        self.outputs = [completion]
        self.prompt_token_ids = [0, 0, 0]


class _FakeEngine:
    """Records each `chat` call like vllm.LLM would receive it."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def chat(self, conversations: list[Any], sampling_params: list[Any], tools: Any, use_tqdm: bool) -> list[Any]:
        self.calls.append({"n": len(conversations), "params": sampling_params, "tools": tools})
        if tools:
            return [_FakeOutput('<tool_call>{"name": "send_mail", "arguments": {"to": "ana"}}</tool_call>')
                    for _ in conversations]
        return [_FakeOutput('{"ok": true}') for _ in conversations]


def _fake_vllm_module() -> types.ModuleType:
    module = types.ModuleType("vllm")
    sampling = types.ModuleType("vllm.sampling_params")
    sampling.StructuredOutputsParams = lambda **kw: ("structured", kw)  # type: ignore[attr-defined]
    module.sampling_params = sampling  # type: ignore[attr-defined]
    module.SamplingParams = lambda **kw: kw  # type: ignore[attr-defined]
    return module


def test_vllm_offline_batches_by_tools_and_uses_structured_outputs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "vllm", _fake_vllm_module())
    engine = _FakeEngine()
    backend = VLLMOfflineBackend("/models/qwen", llm=engine, cache_dir=tmp_path)
    tools = [{"type": "function", "function": {"name": "send_mail", "parameters": {"type": "object"}}}]
    requests = [
        LLMRequest(messages=MESSAGES, json_schema={"type": "object"}, seed=1),
        LLMRequest(messages=MESSAGES, tools=tools),
        LLMRequest(messages=MESSAGES, json_schema={"type": "object"}, seed=2),
    ]
    results = backend.complete_batch(requests)
    assert [c["n"] for c in engine.calls] == [2, 1]  # one engine call per distinct tool list
    assert engine.calls[0]["params"][0]["structured_outputs"] == ("structured", {"json": {"type": "object"}})
    assert engine.calls[0]["params"][0]["seed"] == 1
    first, second, third = results
    assert isinstance(first, LLMResponse) and first.content == '{"ok": true}' and first.prompt_tokens == 3
    assert isinstance(second, LLMResponse) and second.tool_calls[0].name == "send_mail"
    assert isinstance(third, LLMResponse)
    # A second run is answered from the cache without touching the engine.
    again = VLLMOfflineBackend("/models/qwen", llm=engine, cache_dir=tmp_path).complete_batch(requests)
    assert len(engine.calls) == 2
    assert all(isinstance(r, LLMResponse) and r.cached for r in again)


def test_json_content_accepts_control_characters_and_explains_missing_content() -> None:
    response = LLMResponse(content='{"name": "a\x00b"}', tool_calls=[], prompt_tokens=1, completion_tokens=1,
                           finish_reason="stop", cached=False, model="m")
    assert response.json_content() == {"name": "a\x00b"}
    empty = LLMResponse(content=None, tool_calls=[], prompt_tokens=1, completion_tokens=0,
                        finish_reason="length", cached=False, model="m")
    with pytest.raises(ValueError, match="no content"):
        empty.json_content()
