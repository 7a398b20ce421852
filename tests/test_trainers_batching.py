"""A GRPO step's episodes are generated together: one left-padded batch per round of messages, row by row the same
tokens as generating each episode alone."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from coworkenv.env import Env
from coworkenv.llm import run_sync
from coworkenv.spec import EnvSpec
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from tests.support.tiny_checkpoint import tiny_checkpoint
from trainers.batching import BatchedLocalBackend, GroupBatcher, generate_batch
from trainers.local_backend import ChatRenderer, LocalSampler, LocalTransformersBackend
from trainers.rl_rollout import RolloutLimits, arollout_group


@pytest.fixture(scope="module")
def spec() -> EnvSpec:
    return generate_specs(load_taxonomy(Path("taxonomy"))["delegate_and_follow_up"], 1, 0)[0]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, spec: EnvSpec) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    return tiny_checkpoint(spec, tmp_path_factory.mktemp("batching"))


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


def _copy_head_model(induction: bool) -> PreTrainedModel:
    from tests.test_copy_model import SIZES
    from trainers.copy_model import CopyHeadConfig, CopyHeadForCausalLM

    torch.manual_seed(5)
    return CopyHeadForCausalLM(CopyHeadConfig(copy_head_dim=16, copy_induction=induction, **SIZES)).eval()


@pytest.mark.parametrize("which", ["plain", "copy-head", "copy-induction"])
def test_kept_caches_generate_what_whole_prefills_do(tiny: tuple[PreTrainedModel, PreTrainedTokenizerBase],
                                                     which: str) -> None:
    """Three rounds of a group's messages: rows that share a prompt, tails of different lengths (one token, many),
    a row whose earlier answer was rendered differently (it shares only part of a kept sequence), a new row each
    round; greedy. Reusing the caches changes no token, and a shared prompt is prefilled once."""
    from trainers.prefix_cache import PrefixCaches

    model = tiny[0] if which == "plain" else _copy_head_model(which == "copy-induction")
    vocab, eos, pad = int(model.config.vocab_size), 1, 0
    generator = torch.Generator().manual_seed(0)

    def tokens(n: int) -> list[int]:
        return torch.randint(2, vocab, (n,), generator=generator).tolist()

    shared, other = tokens(40), tokens(25)
    prefixes = PrefixCaches(model, 8)
    whole: list[list[list[int]]] = []
    kept: list[list[list[int]]] = []
    sequences = [shared, shared, other]
    for turn in range(3):
        budgets = [6, 4, 7, 5][: len(sequences)]
        kept.append(generate_batch(model, sequences, budgets, 0.0, 1.0, eos, pad, prefixes=prefixes))
        whole.append(generate_batch(model, sequences, budgets, 0.0, 1.0, eos, pad))
        if turn == 0:
            assert prefixes.prefilled_tokens == len(shared) - 1 + len(other) - 1  # the group's prompt once
        answers = kept[-1]
        sequences = [s + (a if n else a[:-2] + tokens(3)) + tokens(n + 1)
                     for s, a, n in zip(sequences, answers, (0, 8, 2), strict=False)] + [tokens(30)]
    assert kept == whole
    assert prefixes.prefilled_tokens < sum(len(s) for s in sequences)  # later rounds prefill only the new tail


def test_a_growing_cache_holds_what_one_forward_pass_sees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fed in pieces that outgrow its room several times (KV layers and copy memory), a `GrowingCache` gives the
    logits of one full forward pass."""
    import trainers.copy_model
    import trainers.prefix_cache
    from trainers.prefix_cache import GrowingCache

    monkeypatch.setattr(trainers.prefix_cache, "_MIN_ROOM", 4)
    monkeypatch.setattr(trainers.copy_model, "_MIN_ROOM", 4)
    model = _copy_head_model(True)
    ids = torch.randint(2, 61, (2, 120), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        full = model(input_ids=ids).logits
        cache = GrowingCache(model.config)
        pieces = [model(input_ids=ids[:, a:b], use_cache=True, cache=cache).logits
                  for a, b in ((0, 3), (3, 4), (4, 5), (5, 40), (40, 41), (41, 119), (119, 120))]
    assert torch.allclose(torch.cat(pieces, 1), full, atol=1e-5)
    assert cache.get_seq_length() == 120
