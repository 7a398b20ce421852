"""A GRPO step's episodes are generated together: one left-padded batch per round of messages, row by row the same
tokens as generating each episode alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from coworkenv.env import Env
from coworkenv.llm import run_sync
from coworkenv.spec import EnvSpec
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from trainers.batching import BatchedLocalBackend, GroupBatcher, generate_batch
from trainers.local_backend import ChatRenderer, LocalSampler, LocalTransformersBackend
from trainers.rl import reference_conversations
from trainers.rl_rollout import RolloutLimits, arollout_group


@pytest.fixture(scope="module")
def spec() -> EnvSpec:
    return generate_specs(load_taxonomy(Path("taxonomy"))["delegate_and_follow_up"], 1, 0)[0]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, spec: EnvSpec) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    from trainers.chat_templates import trl_chat_template
    from trainers.tiny_model import TinyModelSpec, build_tiny_model, render_corpus_text

    template = trl_chat_template("qwen3_training")
    sizes = TinyModelSpec(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=1, head_dim=16, min_token_frequency=1, max_position_embeddings=8192)
    model, tokenizer = build_tiny_model(render_corpus_text(reference_conversations([spec]), template), sizes, 0,
                                        template)
    folder = tmp_path_factory.mktemp("batching")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return AutoModelForCausalLM.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)


def test_a_batch_generates_what_each_sequence_would_alone(tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase],
                                                          spec: EnvSpec) -> None:
    model, tokenizer = tiny
    renderer = ChatRenderer(tokenizer)
    messages, info = Env(spec).reset()
    prompt = renderer.prompt_ids(messages, info["tools"])
    sequences = [prompt[:300], prompt[:240] + prompt[-20:], prompt[:150]]  # three different lengths
    budgets = [12, 5, 9]
    batched = generate_batch(model, sequences, budgets, 0.0, 1.0, renderer.eos_token_id, tokenizer.pad_token_id)
    alone = [LocalSampler(model, renderer.eos_token_id, tokenizer.pad_token_id).generate(ids, n, 0.0)
             for ids, n in zip(sequences, budgets, strict=True)]
    assert batched == alone
    assert [len(row) <= n for row, n in zip(batched, budgets, strict=True)] == [True] * 3


def test_a_groups_episodes_share_each_batch_until_they_end(tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase],
                                                           spec: EnvSpec) -> None:
    model, tokenizer = tiny
    renderer = ChatRenderer(tokenizer)
    limits = RolloutLimits(max_new_tokens=6, max_agent_steps=3, max_completion_tokens=400, temperature=1.0)
    batcher = GroupBatcher(model, renderer.eos_token_id, tokenizer.pad_token_id, 4)
    episodes = run_sync(lambda: arollout_group([spec] * 4, renderer, lambda s, e, p: batcher.slot(), limits,
                                               positions=range(4), seeds=[1, 2, 3, 4]))
    assert len(episodes) == 4 and batcher.live == 0
    assert batcher.batches[0] == 4, "the first message of every episode is generated in one batch"
    # every generated message is a run of env_mask 1s; each came out of exactly one batch
    generated = sum(sum(1 for i, m in enumerate(t.env_mask) if m and (i == 0 or not t.env_mask[i - 1]))
                    for _, t in episodes)
    assert sum(batcher.batches) == generated
    for record, tokens in episodes:
        assert sum(tokens.env_mask) > 0 and len(tokens.completion_ids) <= limits.max_completion_tokens
        assert record.env_id == spec.id


def test_a_batched_backend_evaluates_as_the_one_at_a_time_backend(
        tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase]) -> None:
    from trainers.evaluate import evaluate

    model, tokenizer = tiny
    specs = generate_specs(load_taxonomy(Path("taxonomy"))["delegate_and_follow_up"], 3, 0)
    batched = BatchedLocalBackend(model, tokenizer, name="batched")
    options = {"k": 1, "max_steps": 2, "max_tokens": 5}
    together = evaluate(batched, specs, **options)  # type: ignore[arg-type]
    alone = evaluate(LocalTransformersBackend(model, tokenizer, name="alone"), specs, **options)  # type: ignore[arg-type]
    assert together.episodes == alone.episodes  # greedy: the same messages, steps and scores
    assert max(batched.batcher.batches) == 3 and sum(batched.batcher.batches) == batched.stats.requests
