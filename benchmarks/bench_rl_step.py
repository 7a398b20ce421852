"""What one GRPO step of the learnability study costs on CPU, part by part, with the study's model at random init.

The model is `learn-tiny-copy-induct`'s (a copy head with induction matches, `trainers/copy_model.py`); the shapes are
an RL step's (`trainers/configs/rl-learn-tiny.yaml`: 4 envs x groups of 4 = 16 episodes, prompts of ~1,500 tokens).

- decode: ms per generated token of the whole batch (`--batch` rows at `--context` tokens), from a prefilled cache,
  as `generate` runs it, with transformers' `DynamicCache` and with `trainers.prefix_cache.GrowingCache`;
- episodes: a step's multi-turn generation through `trainers.batching.GroupBatcher`: `--groups` prompts, each shared
  by `--group-size` episodes, `--turns` rounds of `--new-tokens` generated tokens followed by `--env-tokens` tokens of
  tool results (what `trainers.rl_rollout` feeds back);
- loss: GRPO's forward and backward over the group (`--batch` rows of `--context` prompt and `--completion` completion
  tokens, of which `--generated-share` were generated), through the copy-head model's fused-head call as
  `trl.GRPOTrainer` makes it, loss and gradient as DAPO's.

Each part measures the old way and the new one alternately within every repeat (the machine may be shared and its
load changes) and prints the median of `--repeats`, one thread (`--threads`). `--parts step` times one whole GRPO
step instead (`trainers.rl.build_rl_trainer`, rollouts, rewards, loss, optimiser), as the checked-out code does it.

    python benchmarks/bench_rl_step.py [--repeats 2] [--parts decode episodes loss] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from transformers import DynamicCache  # noqa: E402

from coworkenv.llm import run_sync  # noqa: E402
from trainers.batching import GroupBatcher  # noqa: E402
from trainers.config import load_sft_config  # noqa: E402
from trainers.copy_model import (  # noqa: E402
    CopyHeadConfig,
    CopyHeadForCausalLM,
    attach_copy_memory,
    cached_copy_memory,
    install_fused_lm_head,
)

PAD, EOS = 0, 1


def study_model(config_name: str, seed: int) -> CopyHeadForCausalLM:
    """The config's tiny model at random init (special tokens 0 and 1, the rest of the vocabulary ordinary)."""
    from trainers.tiny_model import tiny_model_config

    spec = load_sft_config(config_name).model.tiny.spec()
    config = tiny_model_config(spec, spec.vocab_size, EOS, PAD)
    if not isinstance(config, CopyHeadConfig):
        raise ValueError(f"{config_name}: the tiny model has no copy head (model.tiny.copy_head); this benchmark "
                         "measures the copy-head model of the study, e.g. learn-tiny-copy-induct")
    torch.manual_seed(seed)
    model = CopyHeadForCausalLM(config)
    model.generation_config.eos_token_id, model.generation_config.pad_token_id = EOS, PAD
    return model.eval()


def _random_ids(generator: torch.Generator, n: int, vocab: int) -> list[int]:
    return torch.randint(2, vocab, (n,), generator=generator).tolist()


def median_s(run: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def decode_ms_per_token(model: CopyHeadForCausalLM, batch: int, context: int, tokens: int,
                        repeats: int) -> dict[str, float]:
    """ms per decode step of `batch` rows after a `context`-token prefill (left-padded rows of varied lengths), with
    transformers' `DynamicCache` (concatenates every step) and with `GrowingCache` (writes into spare room)."""
    from trainers.prefix_cache import GrowingCache  # here, so `--parts step` also runs on a checkout without it

    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(2, model.config.vocab_size, (batch, context), generator=generator)
    mask = torch.ones_like(ids)
    for row in range(batch):
        mask[row, : (row * 37) % 200] = 0  # left padding, as in a batch of episodes of different lengths
    ids = ids.masked_fill(mask == 0, PAD)
    prefill = DynamicCache(config=model.config)
    with torch.no_grad():
        model(input_ids=ids[:, :-1], attention_mask=mask[:, :-1], use_cache=True, cache=prefill, logits_to_keep=1)

    def generate(n: int, growing: bool) -> None:
        cache = GrowingCache(model.config) if growing else DynamicCache(config=model.config)
        for index, layer in enumerate(cast(Any, prefill).layers):
            cache.update(layer.keys.clone(), layer.values.clone(), index)
        memory = cached_copy_memory(prefill)
        assert memory is not None
        attach_copy_memory(cache, *(part.clone() for part in memory))
        with torch.no_grad():
            model.generate(input_ids=ids, attention_mask=mask, cache=cache, max_new_tokens=n, min_new_tokens=n,
                           do_sample=True, temperature=0.7, top_k=0, top_p=1.0)

    generate(2, True)  # warm-up
    times: dict[str, list[float]] = {"decode_dynamic_cache_ms": [], "decode_growing_cache_ms": []}
    for _ in range(repeats):
        for name, growing in (("decode_dynamic_cache_ms", False), ("decode_growing_cache_ms", True)):
            one = median_s(lambda: generate(1, growing), 1)  # noqa: B023  # called at once
            many = median_s(lambda: generate(1 + tokens, growing), 1)  # noqa: B023
            times[name].append((many - one) / tokens * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def episode_turns_s(model: CopyHeadForCausalLM, groups: int, group_size: int, context: int, turns: int,
                    new_tokens: int, env_tokens: int, reuse_caches: bool) -> float:
    """Seconds to generate `turns` messages for every episode of a step through `GroupBatcher` (each message
    prefilled whole, or from the caches it kept: `reuse_caches`)."""
    generator = torch.Generator().manual_seed(2)
    vocab = int(model.config.vocab_size)
    prompts = [_random_ids(generator, context + 50 * g, vocab) for g in range(groups)]
    batcher = GroupBatcher(model, EOS, PAD, groups * group_size, reuse_caches=reuse_caches)

    async def episode(position: int) -> None:
        slot = batcher.slot()
        ids = list(prompts[position // group_size])
        for turn in range(turns):
            generated = await slot.generate(ids, new_tokens, 0.7, 1.0, seed=1000 * position + turn)
            ids += generated + ([] if generated[-1:] == [EOS] else [EOS]) + _random_ids(generator, env_tokens, vocab)
        slot.leave()

    async def step() -> None:
        import asyncio

        await asyncio.gather(*(episode(p) for p in range(groups * group_size)))

    started = time.perf_counter()
    run_sync(step)
    return time.perf_counter() - started


def loss_s(model: CopyHeadForCausalLM, batch: int, context: int, completion: int, generated_share: float,
           unpad_rows: bool) -> tuple[float, float]:
    """(forward, backward) seconds of GRPO's loss over one group, as `trl.GRPOTrainer._compute_loss` calls the model:
    left-padded prompts, right-padded completions, the fused-head call (the padded batch, or each row without its
    padding: `unpad_rows`), DAPO's token-mean of the masked log-probs."""
    generator = torch.Generator().manual_seed(3)
    vocab = int(model.config.vocab_size)
    prompt = torch.randint(2, vocab, (batch, context), generator=generator)
    prompt_mask = torch.ones_like(prompt)
    completion_ids = torch.randint(2, vocab, (batch, completion), generator=generator)
    completion_mask = torch.ones_like(completion_ids)
    for row in range(batch):
        prompt_mask[row, : (row * 37) % 200] = 0
        completion_mask[row, completion - (row * 53) % (completion // 2):] = 0
    # Generated tokens come in runs (messages) between runs of tool results.
    run = max(1, int(64 * generated_share))
    tool_mask = ((torch.arange(completion) % 64) < run).long()[None].expand(batch, -1)
    input_ids = torch.cat([prompt.masked_fill(prompt_mask == 0, PAD), completion_ids.masked_fill(completion_mask == 0, PAD)], 1)
    attention_mask = torch.cat([prompt_mask, completion_mask], 1)
    labels = input_ids.masked_fill(attention_mask == 0, -100)
    labels[:, :-completion] = -100
    weights = (completion_mask * tool_mask).float()
    model.train()
    install_fused_lm_head(model, unpad_rows=unpad_rows)
    started = time.perf_counter()
    out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels, fused_lm_head=True)
    loss = -(out.log_probs[:, -completion:] * weights).sum() / weights.sum()
    forward = time.perf_counter() - started
    started = time.perf_counter()
    loss.backward()
    backward = time.perf_counter() - started
    model.zero_grad(set_to_none=True)
    model.forward = types.MethodType(type(model).forward, model)  # type: ignore[method-assign]
    model.eval()
    return forward, backward


def grpo_step_s(config_name: str, envs: int, agent_steps: int, new_tokens: int,
                completion: int) -> tuple[float, int, int]:
    """Seconds of one GRPO step of `rl-learn-tiny` (rollouts of 4 envs x groups of 4 with generation, rewards,
    loss, optimiser step) from `config_name`'s tiny model at random init, on procedural envs of the study's trained
    capabilities; episodes cut to `agent_steps` messages of `new_tokens` and `completion` tokens (a random model
    writes until its budget runs out; it writes no tool call, so its episodes end after one message). Also returned:
    the step's prompt and completion tokens (the work done, to compare like with like)."""
    import tempfile

    from coworkenv.synth.generate import generate_specs
    from coworkenv.synth.taxonomy import load_taxonomy
    from trainers.rl import build_rl_trainer
    from trainers.rl_config import load_rl_config

    base = load_rl_config("rl-learn-tiny")
    tiny = base.model.tiny.model_copy(update=load_sft_config(config_name).model.tiny.model_dump())
    config = base.model_copy(update={
        "model": base.model.model_copy(update={"tiny": tiny}),
        "rollout": base.rollout.model_copy(update={"max_agent_steps": agent_steps, "max_new_tokens": new_tokens,
                                                   "max_completion_tokens": completion}),
        "training": base.training.model_copy(update={"max_steps": 1})})
    taxonomy = load_taxonomy(ROOT / "taxonomy")
    capabilities = ("lookup_answer_source", "delegate_and_follow_up")  # single- and multi-turn, as the curriculum
    specs = [spec for index in range(envs)
             for spec in generate_specs(taxonomy[capabilities[index % 2]], 1, index)]
    with tempfile.TemporaryDirectory() as out:
        setup = build_rl_trainer(config, specs, Path(out))
        started = time.perf_counter()
        setup.trainer.train()
        elapsed = time.perf_counter() - started
    tokens = setup.rollout.tokens
    return elapsed, sum(len(t.prompt_ids) for t in tokens), sum(len(t.completion_ids) for t in tokens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="learn-tiny-copy-induct", help="SFT config whose tiny model is measured")
    parser.add_argument("--parts", nargs="+", default=["decode", "episodes", "loss"],
                        choices=["decode", "episodes", "loss", "step"])
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--context", type=int, default=1500)
    parser.add_argument("--decode-tokens", type=int, default=16)
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--group-size", type=int, default=4)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--new-tokens", type=int, default=32)
    parser.add_argument("--env-tokens", type=int, default=120)
    parser.add_argument("--completion", type=int, default=600)
    parser.add_argument("--generated-share", type=float, default=0.5)
    parser.add_argument("--envs", type=int, default=4, help="step: envs per step (groups of 4 episodes each)")
    parser.add_argument("--agent-steps", type=int, default=4, help="step: assistant messages per episode")
    parser.add_argument("--step-completion", type=int, default=512, help="step: completion tokens per episode")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    figures: dict[str, float] = {}
    if set(args.parts) - {"step"}:
        model = study_model(args.config, 0)
    if "decode" in args.parts:
        figures.update(decode_ms_per_token(model, args.batch, args.context, args.decode_tokens, args.repeats))
    # Before and after alternate within each repeat, so the machine's load falls on both alike.
    if "episodes" in args.parts:
        runs: dict[str, list[float]] = {"episodes_whole_prefill_s": [], "episodes_kept_caches_s": []}
        for _ in range(args.repeats):
            for name, reuse in (("episodes_whole_prefill_s", False), ("episodes_kept_caches_s", True)):
                runs[name].append(episode_turns_s(model, args.groups, args.group_size, args.context, args.turns,
                                                  args.new_tokens, args.env_tokens, reuse))
        figures.update({name: statistics.median(times) for name, times in runs.items()})
    if "loss" in args.parts:
        passes: dict[str, list[float]] = {}
        for _ in range(args.repeats):
            for label, unpad in (("padded", False), ("unpadded", True)):
                forward, backward = loss_s(model, args.batch, args.context, args.completion, args.generated_share,
                                           unpad)
                passes.setdefault(f"loss_{label}_forward_s", []).append(forward)
                passes.setdefault(f"loss_{label}_backward_s", []).append(backward)
        figures.update({name: statistics.median(times) for name, times in passes.items()})
    if "step" in args.parts:
        steps = [grpo_step_s(args.config, args.envs, args.agent_steps, args.new_tokens, args.step_completion)
                 for _ in range(args.repeats)]
        figures["grpo_step_s"] = statistics.median(s for s, _, _ in steps)
        figures["grpo_step_prompt_tokens"] = statistics.median(p for _, p, _ in steps)
        figures["grpo_step_completion_tokens"] = statistics.median(c for _, _, c in steps)
    if args.json:
        print(json.dumps({"args": vars(args), **figures}))
        return
    for name, value in figures.items():
        print(f"{name:22s} {value:10.3f}")


if __name__ == "__main__":
    main()
