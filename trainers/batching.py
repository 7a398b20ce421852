"""Batched generation for concurrent episodes: their next assistant messages in one `generate` call.

A GRPO step's episodes run concurrently on one event loop (`trainers.rl_rollout.EnvRollout`), as do evaluated
episodes (`trainers.evaluate`). Each asks for tokens and waits; `GroupBatcher` left-pads the waiting token
sequences into one batch and generates for all of them at once, so the model runs one forward pass per new token
for the whole batch instead of one per episode. Each row keeps its own token budget: generation runs to
the largest budget, and a row is cut at its own (sampling is autoregressive, so cutting a longer sample at n tokens
is a sample of n tokens) and at its first EOS.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import torch
from transformers import LogitsProcessorList, PreTrainedModel

from coworkenv.llm import LLMRequest
from trainers.local_backend import LocalTransformersBackend, cache_argument
from trainers.prefix_cache import PrefixCaches
from trainers.tool_grammar import GrammarLogitsProcessor, MessageGrammar

__all__ = ["BatchSlot", "BatchedLocalBackend", "GroupBatcher", "generate_batch"]

_KEPT_CACHES = 32  # sequences whose caches a batcher keeps at least (about 6 MB each at 3,500 tokens, learn-tiny)


def generate_batch(model: PreTrainedModel, sequences: Sequence[Sequence[int]], max_new_tokens: Sequence[int],
                   temperature: float, top_p: float, eos_token_id: int, pad_token_id: int | None,
                   seed: int | None = None, prefixes: PrefixCaches | None = None,
                   constraints: Sequence[MessageGrammar | None] = ()) -> list[list[int]]:
    """New tokens for every sequence (each ending with EOS unless its budget ran out), in one left-padded batch.

    With `prefixes`, a sequence that extends one generated before starts from its kept cache, and the batch's rows
    are kept for the next call (`trainers.prefix_cache`); the tokens are the same up to float rounding.
    `constraints`: the grammar of each row's message (`trainers.tool_grammar`; a `None` row, or none given: free).
    """
    if not sequences:
        return []
    pad = eos_token_id if pad_token_id is None else pad_token_id
    width = max(len(s) for s in sequences)
    assembled = prefixes.assemble(sequences, pad) if prefixes is not None else None
    ids = torch.tensor([[pad] * (width - len(s)) + list(s) for s in sequences], device=model.device)
    mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in sequences], device=model.device)
    kwargs: dict[str, Any] = {"max_new_tokens": max(max_new_tokens), "eos_token_id": eos_token_id,
                              "pad_token_id": pad, "do_sample": temperature > 0, "use_cache": True}
    if assembled is not None:
        kwargs[cache_argument(model)] = assembled.cache
    if any(c is not None for c in constraints):
        kwargs["logits_processor"] = LogitsProcessorList([GrammarLogitsProcessor(constraints)])
    if temperature > 0:
        kwargs.update(temperature=temperature, top_p=top_p, top_k=0)
    else:
        kwargs.update(temperature=None, top_p=None, top_k=None)
    with torch.no_grad(), torch.random.fork_rng(devices=[] if model.device.type == "cpu" else None):
        if seed is not None:  # a seeded batch samples the same tokens again, without moving the global RNG
            torch.manual_seed(seed)
        output = cast(Any, model).generate(input_ids=ids, attention_mask=mask, **kwargs)
    out = []
    for row, budget in zip(output[:, width:].tolist(), max_new_tokens, strict=True):
        row = [int(t) for t in row[:budget]]
        out.append(row[: row.index(eos_token_id) + 1] if eos_token_id in row else row)
    if prefixes is not None and assembled is not None:
        prefixes.keep(assembled, [list(s) + row for s, row in zip(sequences, out, strict=True)])
    return out


@dataclass
class _Request:
    ids: list[int]
    max_new_tokens: int
    temperature: float
    top_p: float
    seed: int | None
    answer: asyncio.Future[list[int]]
    constraint: MessageGrammar | None = None


class GroupBatcher:
    """Collects concurrent next-message requests and answers them in batches (one per temperature / top_p).

    With `episodes` given (a GRPO step's group), a batch is generated once every episode still running is waiting.
    Without it (evaluation, where episodes start and end at any time), a batch is generated as soon as the event
    loop has run every task that was ready when the first request of the batch arrived.

    Each generated row's KV cache is kept (`trainers.prefix_cache`), so an episode's next message prefills only the
    tokens added since; `reuse_caches=False` prefills every request whole (as before, for comparison). The caches
    hold the model's activations at its current weights: after the weights change, use a new batcher.
    """

    def __init__(self, model: PreTrainedModel, eos_token_id: int, pad_token_id: int | None,
                 episodes: int | None = None, *, reuse_caches: bool = True) -> None:
        self.model = model
        # One kept cache per live episode; evaluation's episodes come and go, so it keeps the most recent ones.
        self.prefixes = PrefixCaches(model, max(episodes or 0, _KEPT_CACHES)) if reuse_caches else None
        self.eos_token_id = eos_token_id
        self.pad_token_id = pad_token_id
        self.live = episodes
        self.pending: list[_Request] = []
        self.batches: list[int] = []  # the size of every batch generated (for tests and logs)

    def slot(self) -> BatchSlot:
        """The sampler of one episode (`TokenSampler`-shaped, async); call `leave` when that episode ends."""
        return BatchSlot(self)

    async def request(self, ids: Sequence[int], max_new_tokens: int, temperature: float, top_p: float,
                      seed: int | None, constraint: MessageGrammar | None = None) -> list[int]:
        """The new tokens after `ids`, generated under `constraint` when one is given."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[list[int]] = loop.create_future()
        self.pending.append(_Request(list(ids), max_new_tokens, temperature, top_p, seed, answer, constraint))
        if self.live is None:
            if len(self.pending) == 1:
                loop.call_soon(self._flush)  # after the tasks already ready: they may ask too
        elif len(self.pending) >= self.live:
            self._flush()
        return await answer

    def leave(self) -> None:
        """One episode ended: the others no longer wait for it."""
        if self.live is not None:
            self.live -= 1
            if self.pending and len(self.pending) >= self.live:
                self._flush()

    def _flush(self) -> None:
        batch, self.pending = self.pending, []
        groups: dict[tuple[float, float], list[_Request]] = {}
        for request in batch:
            groups.setdefault((request.temperature, request.top_p), []).append(request)
        for (temperature, top_p), requests in groups.items():
            seeds = [r.seed for r in requests]
            seed = None if None in seeds else int.from_bytes(hashlib.sha256(repr(seeds).encode()).digest()[:4], "big")
            try:
                rows = generate_batch(self.model, [r.ids for r in requests], [r.max_new_tokens for r in requests],
                                      temperature, top_p, self.eos_token_id, self.pad_token_id, seed, self.prefixes,
                                      [r.constraint for r in requests])
            except Exception as exc:  # every waiting episode sees the failure, none waits forever
                for request in requests:
                    request.answer.set_exception(exc)
                continue
            self.batches.append(len(requests))
            for request, row in zip(requests, rows, strict=True):
                request.answer.set_result(row)


class BatchSlot:
    """One episode's view of a `GroupBatcher`: `await generate(...)` returns that episode's new tokens."""

    def __init__(self, batcher: GroupBatcher) -> None:
        self.batcher = batcher

    async def generate(self, ids: Sequence[int], max_new_tokens: int, temperature: float, top_p: float = 1.0,
                       seed: int | None = None, constraint: MessageGrammar | None = None) -> list[int]:
        return await self.batcher.request(ids, max_new_tokens, temperature, top_p, seed, constraint)

    def leave(self) -> None:
        self.batcher.leave()


class BatchedLocalBackend(LocalTransformersBackend):
    """`LocalTransformersBackend` whose concurrent requests are generated together: `trainers.evaluate` runs up to
    `concurrency` episodes at once, so their messages share one forward pass per token instead of one each."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.batcher = GroupBatcher(self.model, self.renderer.eos_token_id, self.tokenizer.pad_token_id)

    async def _generate(self, ids: list[int], max_new_tokens: int, request: LLMRequest) -> list[int]:
        """The new tokens after `ids`, generated in the next batch together with the other waiting requests."""
        return await self.batcher.request(ids, max_new_tokens, request.temperature, 1.0, request.seed,
                                          self.constraint(request))
