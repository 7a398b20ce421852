"""Grammar-constrained tool calls for local models (`trainers/tool_grammar.py`): what the grammar lets through, and
that a model generating under it writes only well-formed calls of the request's tools, alone and in a batch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from coworkenv.env import Env
from coworkenv.llm import LLMRequest, run_sync
from coworkenv.spec import EnvSpec
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from tests.support.tiny_checkpoint import tiny_checkpoint
from trainers.batching import generate_batch
from trainers.local_backend import ChatRenderer, LocalSampler, LocalTransformersBackend
from trainers.tool_grammar import (
    GrammarLogitsProcessor,
    ToolCallGrammars,
    check_decoding,
    check_tool_choice,
    requires_call,
    tool_call_lark,
)

pytest.importorskip("llguidance")


@pytest.fixture(scope="module")
def spec() -> EnvSpec:
    return generate_specs(load_taxonomy(Path("taxonomy"))["lookup_answer_source"], 1, 0)[0]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, spec: EnvSpec) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    return tiny_checkpoint(spec, tmp_path_factory.mktemp("grammar"))


@pytest.fixture(scope="module")
def tools(spec: EnvSpec) -> list[dict[str, Any]]:
    return list(Env(spec).reset()[1]["tools"])


@pytest.fixture(scope="module")
def grammars(tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase]) -> ToolCallGrammars:
    return ToolCallGrammars(tiny[1])


def _schema(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(t.get("function", t)["parameters"] for t in tools if t.get("function", t)["name"] == name)


def _accepts(grammars: ToolCallGrammars, tokenizer: PreTrainedTokenizerBase, tools: list[dict[str, Any]],
             text: str, require_call: bool = False) -> bool:
    """Whether the whole message `text`, then EOS, is a sentence of the grammar of `tools`."""
    matcher = grammars.message(tools, require_call).matcher
    tokens = [*tokenizer.encode(text, add_special_tokens=False), int(tokenizer.eos_token_id)]
    return matcher.try_consume_tokens(tokens) == len(tokens) and matcher.is_stopped()


def _call(name: str, arguments: str) -> str:
    return '<tool_call>\n{"name": "' + name + '", "arguments": ' + arguments + "}\n</tool_call>"


def test_the_grammar_takes_calls_of_exposed_tools_with_their_arguments_in_any_order(
        grammars: ToolCallGrammars, tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase],
        tools: list[dict[str, Any]]) -> None:
    tokenizer = tiny[1]
    read = _schema(tools, "chat_read_channel")
    assert read["required"] == ["channel"] and "limit" in read["properties"]  # what the cases below rely on
    for text in [
        _call("chat_read_channel", '{"channel":"dm-u-a"}'),
        _call("chat_read_channel", '{"limit":3,"channel":"dm-u-a"}'),
        _call("chat_read_channel", '{"channel":"dm-u-a","limit":3}'),
        "<think>\n\n</think>\n\n" + _call("chat_list_channels", "{}"),
        _call("chat_read_channel", '{"channel":"x"}') + "\n" + _call("chat_list_channels", "{}"),
        "The value is 41,620 EUR (finance/q3.md).",
        "<think>\n\n</think>\n\nDone.",
    ]:
        assert _accepts(grammars, tokenizer, tools, text), text


@pytest.mark.parametrize("text", [
    _call("chat_read_channel", '{"limit":3}'),  # a required argument missing
    _call("chat_read_channel", "{}"),
    _call("chat_delete_channel", '{"channel":"x"}'),  # a tool the request does not expose
    _call("chat_read_channel", '{"channel":"x","color":"red"}'),  # an argument the tool does not take
    _call("chat_read_channel", '{"channel":"x","limit":"3"}'),  # a value of the wrong type
    _call("chat_read_channel", '{"channel":"x"'),  # JSON that does not close
    _call("chat_read_channel", '{"channel": "x"}'),  # not compact: the rendering writes no spaces
    '<tool_call>\n{"name": "chat_read_channel", "arguments": {"channel":"x"}}',  # no closing tag
    "<think>\nlet me see\n</think>\n\nDone.",  # a think block the templates never fill
])
def test_the_grammar_refuses_malformed_calls(grammars: ToolCallGrammars,
                                             tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase],
                                             tools: list[dict[str, Any]], text: str) -> None:
    assert not _accepts(grammars, tiny[1], tools, text)


def test_a_required_call_leaves_no_reply(grammars: ToolCallGrammars,
                                         tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase],
                                         tools: list[dict[str, Any]]) -> None:
    """`tool_choice` first/required (round rl13): where a call is required the message is calls, never a reply;
    `first` requires one only of a turn's first message, and no tool list requires none."""
    call = "<think>\n\n</think>\n\n" + _call("chat_list_channels", "{}")
    for text, as_reply in [(call, False), ("Done.", True), ("<think>\n\n</think>\n\nDone.", True)]:
        assert _accepts(grammars, tiny[1], tools, text)
        assert _accepts(grammars, tiny[1], tools, text, require_call=True) is not as_reply, text
    user, tool = [{"role": "user", "content": "hi"}], [{"role": "tool", "content": "[]"}]
    assert [requires_call(c, user, tools) for c in ("auto", "first", "required")] == [False, True, True]
    assert [requires_call(c, user + tool, tools) for c in ("auto", "first", "required")] == [False, False, True]
    assert not requires_call("required", user, [])
    with pytest.raises(ValueError, match="needs decoding='grammar'"):
        check_tool_choice("first", "free")
    with pytest.raises(ValueError, match="unknown tool_choice"):
        check_tool_choice("always", "grammar")


def test_enum_and_required_parameters_become_rules() -> None:
    tools = [{"type": "function", "function": {"name": "t", "parameters": {
        "type": "object", "required": ["a", "b"],
        "properties": {"a": {"type": "string"}, "b": {"enum": ["x", "y"]}, "c": {"type": "boolean"}}}}}]
    lark = tool_call_lark(tools)
    args = next(line for line in lark.splitlines() if line.startswith("t0_args:"))
    assert args.count("|") == 1  # two orders of the two required parameters
    assert '"enum": ["x", "y"]' in lark
    with pytest.raises(ValueError, match="without a name"):
        tool_call_lark([{"type": "function", "function": {"parameters": {}}}])
    with pytest.raises(ValueError, match="unknown decoding 'beam'"):
        check_decoding("beam")


def _sample_call(model: PreTrainedModel, renderer: ChatRenderer, prompt: list[int], head: list[int], seed: int,
                 processor: GrammarLogitsProcessor | None) -> str:
    """A sampled message that starts with `head` (a call's opening, forced), the rest generated by `model`."""
    torch.manual_seed(seed)
    sequence = prompt + head
    output = model.generate(input_ids=torch.tensor([sequence]), attention_mask=torch.ones(1, len(sequence), dtype=torch.long),
                            max_new_tokens=160, do_sample=True, temperature=1.0, top_k=0,
                            eos_token_id=renderer.eos_token_id, pad_token_id=renderer.eos_token_id,
                            logits_processor=[processor] if processor is not None else None)
    return str(renderer.tokenizer.decode(head + output[0, len(sequence):].tolist(), skip_special_tokens=True))


def test_an_untrained_model_under_the_grammar_writes_only_well_formed_calls(
        grammars: ToolCallGrammars, tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase], spec: EnvSpec,
        tools: list[dict[str, Any]]) -> None:
    """A random model forced into a call: free, it writes broken calls; under the grammar, every call it finishes
    names an exposed tool and carries that tool's required arguments."""
    model, tokenizer = tiny
    renderer = ChatRenderer(tokenizer, "minimal")
    messages, _ = Env(spec).reset()
    prompt = renderer.prompt_ids(messages, tools)
    head = tokenizer.encode('<tool_call>\n{"name": "', add_special_tokens=False)
    exposed = {t.get("function", t)["name"]: t.get("function", t)["parameters"] for t in tools}
    free_errors = 0
    for seed in range(6):
        free = renderer.parse(tokenizer.encode(_sample_call(model, renderer, prompt, head, seed, None),
                                               add_special_tokens=False))
        free_errors += len(free.errors) + sum(c.name not in exposed for c in free.calls)
        grammar = grammars.message(tools)
        assert grammar.matcher.consume_tokens(head)
        processor = GrammarLogitsProcessor([grammar])
        text = _sample_call(model, renderer, prompt, head, seed, processor)
        assert processor.failures == []
        parsed = renderer.parse(tokenizer.encode(text, add_special_tokens=False))
        finished = text.count("</tool_call>")
        assert len(parsed.calls) >= finished >= 1 or parsed.errors  # a call cut at the budget is the only error
        for call in parsed.calls[:finished]:
            arguments = json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments
            assert call.name in exposed
            assert set(exposed[call.name].get("required") or ()) <= set(arguments)
            assert set(arguments) <= set(exposed[call.name]["properties"])
    assert free_errors > 0  # the same model, unconstrained, breaks calls: the test can tell the two apart


def test_the_backend_and_a_batch_constrain_each_request_with_its_own_tools(
        tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase], spec: EnvSpec, tools: list[dict[str, Any]]) -> None:
    model, tokenizer = tiny
    backend = LocalTransformersBackend(model, tokenizer, rendering="minimal", decoding="grammar")
    messages, _ = Env(spec).reset()
    request = LLMRequest(messages=messages, tools=tools, max_tokens=48, temperature=0.0, seed=1)
    response = run_sync(lambda: backend.complete(request))
    assert response.tool_call_errors == []
    renderer = backend.renderer
    prompt = renderer.prompt_ids(messages, tools)
    # One free row and one constrained row in one batch: the free row is what it is alone, unconstrained.
    grammars = ToolCallGrammars(tokenizer)
    constrained = grammars.message(tools)
    rows = generate_batch(model, [prompt[:200], prompt], [20, 20], 0.0, 1.0, renderer.eos_token_id,
                          tokenizer.pad_token_id, constraints=[None, constrained])
    alone = LocalSampler(model, renderer.eos_token_id, tokenizer.pad_token_id).generate(prompt[:200], 20, 0.0)
    assert rows[0] == alone
    under = LocalSampler(model, renderer.eos_token_id, tokenizer.pad_token_id).generate(
        prompt, 20, 0.0, constraint=grammars.message(tools))
    assert rows[1] == under  # the constrained row is what it is alone under its grammar
    assert constrained.matcher.is_error() is False
    with pytest.raises(ValueError, match="unknown decoding"):
        LocalTransformersBackend(model, tokenizer, decoding="beam")
    with pytest.raises(ValueError, match="spaced"):  # its values start with a space the grammar's JSON refuses
        LocalTransformersBackend(model, tokenizer, rendering="spaced", decoding="grammar")
    assert backend.decoding == "grammar"


def test_rl_rollouts_sample_every_message_under_its_grammar(
        tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase], spec: EnvSpec, tools: list[dict[str, Any]]) -> None:
    """GRPO's episodes (`rollout.decoding: grammar`): each generated message, read back by a fresh matcher of the
    env's tools, is a sentence of the grammar; free sampling of the same untrained model is not."""
    from pydantic import ValidationError

    from trainers.batching import GroupBatcher
    from trainers.rl_config import RolloutSection
    from trainers.rl_rollout import RolloutLimits, arollout_group

    model, tokenizer = tiny
    renderer = ChatRenderer(tokenizer, "minimal")
    grammars = ToolCallGrammars(tokenizer)
    limits = RolloutLimits(max_new_tokens=24, max_agent_steps=3, max_completion_tokens=400, temperature=1.0)

    def messages(constrained: bool, tool_choice: str = "auto") -> list[list[int]]:
        batcher = GroupBatcher(model, renderer.eos_token_id, tokenizer.pad_token_id, 4)
        episodes = run_sync(lambda: arollout_group([spec] * 4, renderer, lambda s, e, p: batcher.slot(), limits,
                                                   positions=range(4), seeds=[11, 12, 13, 14],
                                                   grammars=grammars if constrained else None,
                                                   tool_choice=tool_choice))
        out = []
        for _, tokens in episodes:
            run: list[int] = []
            for token, generated in zip(tokens.completion_ids, tokens.env_mask, strict=True):
                if generated:
                    run.append(token)
                elif run:
                    out.append(run)
                    run = []
            if run:
                out.append(run)
        return out

    def accepted(message: list[int], require_call: bool = False) -> bool:
        matcher = grammars.message(tools, require_call).matcher
        return matcher.try_consume_tokens(message) == len(message)

    constrained = messages(True)
    assert constrained and all(accepted(m) for m in constrained)
    assert not all(accepted(m) for m in messages(False))
    # tool_choice "required": every message of every episode is (the start of) tool calls, none a reply
    required = messages(True, "required")
    assert required and all(accepted(m, require_call=True) for m in required)
    with pytest.raises(ValidationError):
        RolloutSection(decoding="beam")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"needs rollout\.decoding: grammar"):
        RolloutSection(tool_choice="required")
