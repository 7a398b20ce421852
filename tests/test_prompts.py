"""The prompt layout a prefix cache can reuse: fixed instructions and sorted, compact tools first, env text after.

Rendered with the chat template of the vLLM test server and with Qwen3's own template (as a Qwen3 server renders
them), the requests of one episode extend each other, and the envs of one capability with the same tools share
everything up to the end of the tool block.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pytest

from coworkenv.env import AGENT_INSTRUCTIONS, Env
from coworkenv.prompts import compact_parameters, prompt_tools
from coworkenv.rollout.narration import NarratedOracle
from coworkenv.rollout.record import openai_message
from coworkenv.rollout.teachers import run_agent
from coworkenv.synth.generate import generate_spec
from coworkenv.synth.taxonomy import load_taxonomy
from tests.support.vllm_cpu import CHAT_TEMPLATE

chat_template_utils = pytest.importorskip("transformers.utils.chat_template_utils")


def _templates() -> dict[str, str]:
    templates = {"vllm-test-server": CHAT_TEMPLATE}
    trl = pytest.importorskip("trl")
    with open(os.path.join(os.path.dirname(trl.__file__), "chat_templates", "qwen3.jinja"), encoding="utf-8") as f:
        templates["qwen3"] = f.read()
    return templates


def _render(template: str, messages: Sequence[dict[str, Any]], tools: list[dict[str, Any]],
            generation_prompt: bool = True) -> str:
    rendered = chat_template_utils.render_jinja_template(
        conversations=[list(messages)], tools=tools, chat_template=template, add_generation_prompt=generation_prompt)
    return str(rendered[0][0] if isinstance(rendered, tuple) else rendered[0])


def _requests(spec_seed: int, capability: str = "inbox_triage_reply") -> tuple[list[list[dict[str, Any]]], list[Any]]:
    """The chat requests an agent would send in one oracle episode (messages before each assistant message)."""
    spec = generate_spec(load_taxonomy().capabilities[capability], spec_seed)
    record = run_agent(Env(spec), NarratedOracle(spec, 0), sampling={"seed": 0})
    messages = [openai_message(m) for m in record.messages]
    requests = [messages[:i] for i, m in enumerate(messages) if m["role"] == "assistant"]
    return requests, record.tools


def _common_prefix(texts: Sequence[str]) -> int:
    first = texts[0]
    n = min(len(t) for t in texts)
    return next((i for i in range(n) if any(t[i] != first[i] for t in texts)), n)


@pytest.mark.parametrize("template_name", ["vllm-test-server", "qwen3"])
def test_every_request_of_an_episode_extends_the_one_before(template_name: str) -> None:
    template = _templates()[template_name]
    requests, tools = _requests(0)
    assert len(requests) >= 3
    for before, after in itertools.pairwise(requests):
        assert _render(template, after, tools).startswith(_render(template, before, tools, generation_prompt=False))


@pytest.mark.parametrize("template_name", ["vllm-test-server", "qwen3"])
def test_envs_with_the_same_tools_share_the_prompt_up_to_the_end_of_the_tools(template_name: str) -> None:
    template = _templates()[template_name]
    by_tools: dict[tuple[str, ...], list[str]] = defaultdict(list)
    tools_of: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    env_texts = []
    for seed in range(4):
        requests, tools = _requests(seed)
        first = requests[0]
        assert [m["role"] for m in first] == ["system", "system", "user"] and first[0]["content"] == AGENT_INSTRUCTIONS
        rendered = _render(template, first, tools)
        last_tool = rendered.index(tools[-1]["function"]["name"])
        # Everything env-specific comes after the whole tool block.
        assert rendered.index(first[1]["content"]) > last_tool and rendered.index(first[2]["content"]) > last_tool
        key = tuple(t["function"]["name"] for t in tools)
        by_tools[key].append(rendered)
        tools_of[key] = tools
        env_texts.append(first[1]["content"])
    assert len(set(env_texts)) == 4  # the envs differ (people, times, context)
    groups = [key for key, texts in by_tools.items() if len(texts) > 1]
    assert groups, "no two envs of the capability got the same tools"
    for key in groups:
        texts = by_tools[key]
        shared = texts[0][:_common_prefix(texts)]
        assert shared.startswith(texts[0][:texts[0].index(AGENT_INSTRUCTIONS)]) and AGENT_INSTRUCTIONS in shared
        # The templates render each tool with `tojson`; every one of them is inside the shared prefix.
        assert all(json.dumps(t, ensure_ascii=False) in shared for t in tools_of[key])


def test_prompt_tools_are_sorted_by_name_and_stable() -> None:
    spec = generate_spec(load_taxonomy().capabilities["refuse_forbidden_action"], 0)
    env = Env(spec)
    _, info = env.reset()
    names = [t["function"]["name"] for t in info["tools"]]
    assert names == sorted(names) and len(names) == len(set(names)) == len(env.toolbox.exposed)
    assert info["tools"] == env.reset()[1]["tools"] == prompt_tools(reversed(env.openai_tools()))


def test_compact_parameters_drop_only_what_tells_the_model_nothing() -> None:
    schema: dict[str, Any] = {
        "additionalProperties": False,
        "properties": {
            "to": {"description": "Recipients.", "items": {"type": "string"}, "type": "array"},
            "cc": {"anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}], "default": None,
                   "description": "Copy recipients."},
            "due": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Due date or null."},
            "owner": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "limit": {"default": 20, "type": "integer"},
        },
        "required": ["to", "owner"],
        "type": "object",
    }
    original = copy.deepcopy(schema)
    compact = compact_parameters(schema)
    assert schema == original  # the input is left alone
    assert "additionalProperties" not in compact and compact["required"] == ["to", "owner"]
    props = compact["properties"]
    assert props["cc"] == {"items": {"type": "string"}, "type": "array", "description": "Copy recipients."}
    assert props["due"] == original["properties"]["due"]  # nullable without a null default: null means something
    assert props["owner"] == original["properties"]["owner"]  # required: the null branch stays
    assert props["to"] == original["properties"]["to"] and props["limit"] == {"default": 20, "type": "integer"}


def test_prompt_tools_reject_nameless_and_duplicate_tools() -> None:
    tool = {"type": "function", "function": {"name": "mail_send", "parameters": {"type": "object"}}}
    with pytest.raises(ValueError, match=r"tools\[1\].*'mail_send'"):
        prompt_tools([tool, tool])
    with pytest.raises(ValueError, match=r"tools\[0\] has no function.name"):
        prompt_tools([{"type": "function", "function": {"description": "x"}}])
