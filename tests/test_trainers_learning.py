"""Learnability study pieces: the compact rendering shared by training and inference, and the interval math."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trainers.chat_templates import trl_chat_template
from trainers.eval_ci import (
    bootstrap_mean,
    ols_slope,
    paired_bootstrap_difference,
    report_differences,
    t_interval,
    welch_difference,
)
from trainers.evaluate import EpisodeResult, report_from_records
from trainers.local_backend import ChatRenderer
from trainers.rendering import (
    compact_tool,
    read_rendering,
    render_messages,
    render_tools,
    table_cells,
    write_rendering,
)
from trainers.sft_data import to_chat
from trainers.tiny_model import TinyModelSpec, render_corpus_text, train_tokenizer

TOOL = {"type": "function", "function": {
    "name": "tickets_update",
    "description": "Update a ticket's fields. Only the fields given change; others are kept as they are.",
    "parameters": {"type": "object", "additionalProperties": False, "required": ["ticket_id"], "properties": {
        "ticket_id": {"type": "string", "description": "Ticket id such as PLAT-12."},
        "priority": {"type": "string", "enum": ["p1", "p2", "p3"], "description": "New priority."},
        "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels to set."}}}}}
ROW = {"messages": [
    {"role": "system", "content": "You act for Ana."},
    {"role": "user", "content": "Raise PLAT-7 to p1."},
    {"role": "assistant", "content": "Updating it.", "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "tickets_update", "arguments": json.dumps({"ticket_id": "PLAT-7", "priority": "p1"})}}]},
    {"role": "tool", "content": '{"id":"PLAT-7","priority":"p1"}', "tool_call_id": "c1", "name": "tickets_update"},
    {"role": "assistant", "content": "PLAT-7 is now p1."}], "tools": json.dumps([TOOL])}


def test_compact_rendering_keeps_what_a_call_needs_and_is_shared_by_training_and_inference(tmp_path: Path) -> None:
    compact = compact_tool(TOOL)
    assert compact == {"name": "tickets_update", "description": "Update a ticket's fields.",
                       "parameters": {"ticket_id": "string", "priority": "p1|p2|p3, optional",
                                      "labels": "array of string, optional"}}
    assert render_tools([TOOL], "full") == [TOOL]
    assert render_tools([TOOL], "minimal") == [{"name": "tickets_update", "parameters": compact["parameters"]}]
    messages, tools = to_chat(ROW, rendering="compact")
    assert tools == [compact]
    assert messages[2]["tool_calls"][0]["function"]["arguments"] == '{"ticket_id":"PLAT-7","priority":"p1"}'
    with pytest.raises(ValueError, match="unknown rendering 'tiny'"):
        render_messages(messages, "tiny")

    template = trl_chat_template("qwen3_training")
    corpus = list(render_corpus_text([to_chat(ROW, rendering=m) for m in ("full", "compact")] * 3, template))
    tokenizer = train_tokenizer(corpus, TinyModelSpec(vocab_size=400, min_token_frequency=1), template)
    trained = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False)
    prompt = ChatRenderer(tokenizer, "compact").prompt_ids(ROW["messages"][:2], [TOOL])
    # Inference renders the prompt exactly as training rendered the same conversation's prefix.
    assert str(trained).startswith(tokenizer.decode(prompt).removesuffix("<|im_start|>assistant\n"))
    full_prompt = ChatRenderer(tokenizer, "full").prompt_ids(ROW["messages"][:2], [TOOL])
    assert len(prompt) < len(full_prompt)
    generated = tokenizer.encode(str(trained).split("<|im_start|>assistant\n")[1].split("<|im_end|>")[0])
    parsed = ChatRenderer(tokenizer, "compact").parse([*generated, tokenizer.eos_token_id])
    assert [(c.name, json.loads(c.arguments)) for c in parsed.calls] == [
        ("tickets_update", {"ticket_id": "PLAT-7", "priority": "p1"})]
    assert read_rendering(tmp_path) == "full"
    write_rendering(tmp_path, "compact")
    assert read_rendering(tmp_path) == "compact"


@pytest.mark.parametrize("word_split", ["qwen", "bare", "capitals"])
def test_under_the_bare_split_a_value_is_the_same_tokens_in_prose_and_in_a_tool_call(word_split: str) -> None:
    template = trl_chat_template("qwen3_training")
    messages, tools = to_chat(ROW, rendering="minimal")
    prose = "Please set PLAT-7 to p1."  # as a request names a value: after a space
    corpus = [*render_corpus_text([(messages, tools)] * 3, template), *[prose] * 20]
    tokenizer = train_tokenizer(corpus, TinyModelSpec(vocab_size=400, min_token_frequency=1, word_split=word_split),
                                template)
    text = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False)
    ids = tokenizer.encode(str(text))
    assert tokenizer.decode(ids) == text  # nothing lost either way
    call = [tokenizer.decode([i]) for i in tokenizer.encode('{"ticket_id":"PLAT-7"}')]
    start = call.index('":"') + 1
    first_word = tokenizer.encode("".join(call[start:call.index("-")]))  # the value's first word, as a call writes it
    assert tokenizer.decode(first_word) == "PLAT"
    named = tokenizer.encode(prose)
    copyable = any(named[i:i + len(first_word)] == first_word for i in range(len(named)))
    assert copyable == (word_split != "qwen")


def test_the_capitals_split_adds_space_tokens_only_before_capitalized_words() -> None:
    template = trl_chat_template("qwen3_training")
    messages, tools = to_chat(ROW, rendering="minimal")
    prose = "please ask the team about the outage and set PLAT-7 to p1 for Heron Games today."
    corpus = [*render_corpus_text([(messages, tools)] * 3, template), *[prose] * 20]
    lengths = {}
    for word_split in ("qwen", "bare", "capitals"):
        spec = TinyModelSpec(vocab_size=400, min_token_frequency=1, word_split=word_split)
        tokenizer = train_tokenizer(corpus, spec, template)
        assert tokenizer.decode(tokenizer.encode(prose)) == prose
        lengths[word_split] = len(tokenizer.encode(prose))
        pieces = [tokenizer.decode([i]) for i in tokenizer.encode(prose)]
        if word_split == "capitals":  # a lowercase word keeps its space, a capitalized one never takes it
            assert " ask" in pieces and "Heron" in pieces and " Heron" not in pieces
    assert lengths["qwen"] < lengths["capitals"] < lengths["bare"]


def test_the_spaced_rendering_makes_a_value_named_in_prose_the_same_tokens_in_a_call_and_parses_it_back() -> None:
    template = trl_chat_template("qwen3_training")
    prose = "Please set PLAT-7 to p1 for Heron Games."  # as a request names values: after a space
    row = {**ROW, "messages": [*ROW["messages"][:3], {**ROW["messages"][3], "content": '{"id":"PLAT-7","labels":["a"]}'},
                               ROW["messages"][4]]}
    messages, tools = to_chat(row, rendering="spaced")
    assert tools == render_tools([TOOL], "minimal")  # tools as `minimal` renders them
    assert messages[2]["tool_calls"][0]["function"]["arguments"] == '{"ticket_id":" PLAT-7","priority":" p1"}'
    assert messages[3]["content"] == '{"id":" PLAT-7","labels":[" a"]}'  # a JSON tool result: its strings spaced
    assert [m["content"] for m in messages if m["role"] != "tool"] == [
        m["content"] for m in row["messages"] if m["role"] != "tool"]  # prose unchanged
    assert render_messages([{"role": "tool", "content": "not json {"}], "spaced")[0]["content"] == "not json {"
    corpus = [*render_corpus_text([(messages, tools)] * 3, template), *[prose] * 20]
    copyable = {}
    for mode in ("minimal", "spaced"):
        tokenizer = train_tokenizer(corpus, TinyModelSpec(vocab_size=400, min_token_frequency=1), template)
        call = tokenizer.encode(render_messages(row["messages"][2:3], mode)[0]["tool_calls"][0]["function"]["arguments"])
        pieces = [tokenizer.decode([i]) for i in call]
        first = next(i for i, piece in enumerate(pieces) if "PLAT" in piece)
        named = tokenizer.encode(prose)
        copyable[mode] = call[first] in named  # the value's first token occurs where the request names it
    assert copyable == {"minimal": False, "spaced": True}
    # The model writes values spaced; the call that reaches the env has them as the user wrote them.
    generated = tokenizer.encode('<tool_call>\n{"name": "tickets_update", "arguments": {"ticket_id":" PLAT-7",'
                                 '"labels":[" a","b"]}}\n</tool_call>')
    parsed = ChatRenderer(tokenizer, "spaced").parse([*generated, tokenizer.eos_token_id])
    assert [json.loads(c.arguments) for c in parsed.calls] == [{"ticket_id": "PLAT-7", "labels": ["a", "b"]}]
    assert [json.loads(c.arguments) for c in ChatRenderer(tokenizer, "minimal").parse(generated).calls] == [
        {"ticket_id": " PLAT-7", "labels": [" a", "b"]}]


TABLE = ("# Office information\n\n| office | reception phone | badge desk room |\n|---|:--|--:|\n"
         "| Chicago | +48 253 6198 | R-690 |\n| Madrid | +36 615 8985 | R-944 |\n\nAsk Wanda.")


def test_the_cells_rendering_writes_each_table_cell_after_its_row_key_and_column_name() -> None:
    assert table_cells(TABLE).split("\n") == [
        "# Office information", "", "| office | reception phone | badge desk room |",
        "- Chicago, reception phone: +48 253 6198", "- Chicago, badge desk room: R-690",
        "- Madrid, reception phone: +36 615 8985", "- Madrid, badge desk room: R-944", "", "Ask Wanda."]
    for kept in ("| a | b |\n|---|---|\n| x | y | z |",  # a row that does not match its header
                 "| a | b |\n| x | y |",  # no rule line: not a table
                 "a | b", "no table at all", ""):
        assert table_cells(kept) == kept
    result = json.dumps({"path": "office/locations.md", "content": TABLE})
    spaced = json.loads(render_messages([{"role": "tool", "content": result}], "spaced")[0]["content"])
    cells = json.loads(render_messages([{"role": "tool", "content": result}], "cells")[0]["content"])
    assert spaced["content"] == " " + TABLE and cells["content"] == " " + table_cells(TABLE)
    assert cells["path"] == " office/locations.md"  # strings spaced as under `spaced`
    assert render_messages([{"role": "tool", "content": TABLE}], "cells")[0]["content"] == table_cells(TABLE)
    # Only tool results change; a call's arguments are written as under `spaced`, and parsed back the same way.
    messages, tools = to_chat(ROW, rendering="cells")
    assert (messages, tools) == to_chat(ROW, rendering="spaced")
    tokenizer = train_tokenizer(render_corpus_text([(messages, tools)] * 3, trl_chat_template("qwen3_training")),
                                TinyModelSpec(vocab_size=300, min_token_frequency=1), trl_chat_template("qwen3_training"))
    generated = tokenizer.encode('<tool_call>\n{"name": "tickets_update", "arguments": {"ticket_id":" PLAT-7"}}\n'
                                 '</tool_call>')
    assert [json.loads(c.arguments) for c in ChatRenderer(tokenizer, "cells").parse(generated).calls] == [
        {"ticket_id": "PLAT-7"}]


def _episode(env: str, passed: bool, cap: str = "c", turns: str = "single") -> EpisodeResult:
    return EpisodeResult(env, cap, turns, 0, 1.0 if passed else 0.25, passed, "done", 3, 2, 0, 100)


def test_intervals_and_paired_differences() -> None:
    assert bootstrap_mean([1.0] * 20).low == 1.0
    estimate = bootstrap_mean([0.0, 1.0] * 50, seed=1)
    assert estimate.value == 0.5 and 0.38 < estimate.low < 0.5 < estimate.high < 0.62
    same = paired_bootstrap_difference({"a": 1.0, "b": 0.0}, {"a": 1.0, "b": 0.0})
    assert (same.value, same.low, same.high, same.significant) == (0.0, 0.0, 0.0, False)
    with pytest.raises(ValueError, match="share no env"):
        paired_bootstrap_difference({"a": 1.0}, {"b": 1.0})

    slope = ols_slope([0, 1, 2, 3], [1.0, 3.0, 5.0, 7.0])
    assert slope == pytest.approx(2.0)
    interval = t_interval([1.0, 2.0, 3.0])  # mean 2, sd 1, t(0.975, 2) = 4.3027
    assert interval.value == 2.0 and interval.high - 2.0 == pytest.approx(4.3027 / np.sqrt(3), rel=1e-3)
    assert t_interval([2.0, 2.5, 3.0]).significant and not interval.significant
    # Welch: unequal variances and sizes; t(0.975) on the Welch-Satterthwaite degrees of freedom (4.41 here).
    welch = welch_difference([1.0, 2.0, 2.5, 3.0], [3.0, 4.0, 5.0])
    assert welch.value == pytest.approx(1.875) and not welch.significant
    assert (welch.low, welch.high) == pytest.approx((-0.1206, 3.8706), abs=1e-3)
    assert welch_difference([0.0, 0.1, 0.05], [0.5, 0.6, 0.55]).significant
    assert not welch_difference([0.2, 0.2], [0.2, 0.2]).significant
    assert welch_difference([0.0, 0.0], [0.5, 0.5]).low == 0.5
    with pytest.raises(ValueError, match="at least 2 values per side"):
        welch_difference([1.0], [1.0, 2.0])

    envs = [f"e{i}" for i in range(40)]
    base = report_from_records([], "base", 1)
    base = type(base)(**{**base.__dict__, "episodes": [_episode(e, False, turns="multi" if i % 2 else "single")
                                                       for i, e in enumerate(envs)]})
    sft = type(base)(**{**base.__dict__, "model": "sft", "episodes": [
        _episode(e, i % 4 != 0, turns="multi" if i % 2 else "single") for i, e in enumerate(envs)]})
    rows = {(r["group"], r["metric"]): r for r in report_differences({"base": base, "sft": sft}, resamples=500)}
    overall: dict[str, Any] = rows[("overall", "pass_at_1")]
    assert overall["envs"] == 40 and overall["sft-base"]["value"] == pytest.approx(0.75)
    assert overall["sft-base"]["significant"] and overall["sft-base"]["low"] > 0.5
    assert {"single-turn", "multi-turn", "c"} <= {g for g, _ in rows}


def test_token_probe_counts_assistant_tokens_and_tells_carried_values_from_format() -> None:
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    from trainers.learning_probe import teacher_forced_accuracy

    rows = [json.loads(json.dumps(ROW).replace("PLAT-7", ticket)) for ticket in ("PLAT-7", "OPS-93", "WEB-418")]
    template = trl_chat_template("qwen3_training")
    corpus = list(render_corpus_text([to_chat(r, rendering="minimal") for r in rows] * 3, template))
    tokenizer = train_tokenizer(corpus, TinyModelSpec(vocab_size=400, min_token_frequency=1), template)
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(Qwen3Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                                         head_dim=16))
    result = teacher_forced_accuracy(model, tokenizer, rows, "minimal")
    chats = [to_chat(r, rendering="minimal") for r in rows]
    masks = [tokenizer.apply_chat_template(messages, tools=tools, return_dict=True, return_assistant_tokens_mask=True)
             ["assistant_masks"] for messages, tools in chats]
    assert result.conversations == 3 and result.tokens == sum(sum(m) for m in masks)
    # The ticket ids are read in the request and written in the call and the reply: carried over, not format.
    assert 0 < result.copied_tokens < result.tokens
    # Each ticket id is one carried run per message that writes it: its first token opens the run.
    assert 0 < result.first_copied_tokens < result.copied_tokens
    assert result.first_copied_correct <= min(result.first_copied_tokens, result.copied_correct)
    assert 0.0 <= result.copied_accuracy <= 1.0 and 0.0 <= result.other_accuracy <= 1.0
    assert result.to_dict()["accuracy"] == round(result.correct / result.tokens, 4)
    assert result.first_copied_pointer_right is None and "first_copied_pointer_accuracy" not in result.to_dict()
    # The rest of each carried run is `continued`; within it, tokens whose two predecessors are followed elsewhere in
    # what was read by another token (the id `9393`: `93` goes on with `9` once, and ends it once).
    assert result.continued_tokens == result.copied_tokens - result.first_copied_tokens
    assert result.shared_pair_tokens <= result.continued_tokens
    sharing = teacher_forced_accuracy(model, tokenizer, [json.loads(json.dumps(ROW).replace("PLAT-7", ticket))
                                                         for ticket in ("PLAT-7", "OPS-9393", "WEB-418")], "minimal")
    assert 0 < sharing.shared_pair_tokens <= sharing.continued_tokens, sharing
    # A copy-head model also says what its pointer and gate did at the first token of each carried value.
    from trainers.copy_model import CopyHeadConfig, CopyHeadForCausalLM

    torch.manual_seed(0)
    copying = CopyHeadForCausalLM(CopyHeadConfig(copy_head_dim=8, vocab_size=len(tokenizer), hidden_size=32,
                                                 intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                                                 num_key_value_heads=1, head_dim=16))
    torch.nn.init.constant_(copying.copy_gate.bias, -30.0)  # the copy head alone speaks
    probed = teacher_forced_accuracy(copying, tokenizer, rows, "minimal")
    assert probed.first_copied_tokens == result.first_copied_tokens
    assert probed.first_copied_copy_weight == pytest.approx(1.0)
    assert probed.first_copied_pointer_right is not None
    assert 0 <= probed.first_copied_pointer_right <= probed.first_copied_tokens


def test_anneal_lr_follows_the_training_budget_not_the_step_count(tmp_path: Path) -> None:
    import torch
    from transformers import TrainerControl, TrainerState, TrainingArguments, get_cosine_schedule_with_warmup

    from trainers.learning_curve import HeldoutCurve

    with pytest.raises(ValueError, match="budget"):
        HeldoutCurve([], 10, "minimal", anneal_lr=True)
    curve = HeldoutCurve([], 10**9, "minimal", budget_s=100.0, clock="cpu", at_start=False, anneal_lr=True)
    clock = [0.0]
    curve._now = lambda: clock[0]  # a clock the test moves
    weight = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([weight], lr=1.0)
    scheduler = get_cosine_schedule_with_warmup(optimizer, 10, 1000)  # the config's step-based schedule
    args = TrainingArguments(output_dir=str(tmp_path), warmup_steps=10, max_steps=1000, report_to=[])
    curve.on_train_begin(args, TrainerState(), TrainerControl(), lr_scheduler=scheduler)

    def step(seconds: float) -> float:
        clock[0] = seconds
        optimizer.step()
        scheduler.step()
        return float(optimizer.param_groups[0]["lr"])

    assert step(0.0) == pytest.approx(0.1)  # warmup is counted in steps: step 1 of 10
    for _ in range(8):
        step(0.0)
    assert step(0.0) == pytest.approx(1.0)  # step 10: warmed up, no budget spent
    assert step(50.0) == pytest.approx(0.5)  # half the budget: half way down the cosine, at step 11 of 1,000
    assert step(75.0) == pytest.approx(0.5 * (1 + math.cos(0.75 * math.pi)))
    assert step(100.0) == pytest.approx(0.0, abs=1e-12)  # the budget is spent: annealed, whatever the step
    assert step(250.0) == pytest.approx(0.0, abs=1e-12)
