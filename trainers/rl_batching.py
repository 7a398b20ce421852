"""Batched generation for a GRPO step's episodes: every live episode's next assistant message in one `generate` call.

The episodes of a step run concurrently on one event loop (`trainers.rl_rollout.EnvRollout`). Each asks its
`BatchSlot` for tokens and waits; once every episode still running is waiting, `GroupBatcher` left-pads their
token sequences into one batch and generates for all of them at once, so the model runs one forward pass per
new token for the whole group instead of one per episode. Each row keeps its own token budget: generation runs to
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
from transformers import PreTrainedModel

__all__ = ["BatchSlot", "GroupBatcher", "generate_batch"]


def generate_batch(model: PreTrainedModel, sequences: Sequence[Sequence[int]], max_new_tokens: Sequence[int],
                   temperature: float, top_p: float, eos_token_id: int, pad_token_id: int | None,
                   seed: int | None = None) -> list[list[int]]:
    """New tokens for every sequence (each ending with EOS unless its budget ran out), in one left-padded batch."""
    if not sequences:
        return []
    pad = eos_token_id if pad_token_id is None else pad_token_id
    width = max(len(s) for s in sequences)
    ids = torch.tensor([[pad] * (width - len(s)) + list(s) for s in sequences], device=model.device)
    mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in sequences], device=model.device)
    kwargs: dict[str, Any] = {"max_new_tokens": max(max_new_tokens), "eos_token_id": eos_token_id,
                              "pad_token_id": pad, "do_sample": temperature > 0, "use_cache": True}
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
    return out


@dataclass
class _Request:
    ids: list[int]
    max_new_tokens: int
    seed: int | None
    answer: asyncio.Future[list[int]]


class GroupBatcher:
    """Collects the next-message requests of `episodes` concurrent episodes and answers them as one batch."""

    def __init__(self, model: PreTrainedModel, eos_token_id: int, pad_token_id: int | None, episodes: int,
                 temperature: float, top_p: float) -> None:
        self.model = model
        self.eos_token_id = eos_token_id
        self.pad_token_id = pad_token_id
        self.live = episodes
        self.temperature = temperature
        self.top_p = top_p
        self.pending: list[_Request] = []
        self.batches: list[int] = []  # the size of every batch generated (for tests and logs)

    def slot(self) -> BatchSlot:
        """The sampler of one episode (`TokenSampler`-shaped, async); call `leave` when that episode ends."""
        return BatchSlot(self)

    async def request(self, ids: Sequence[int], max_new_tokens: int, seed: int | None) -> list[int]:
        answer: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self.pending.append(_Request(list(ids), max_new_tokens, seed, answer))
        self._flush_if_all_waiting()
        return await answer

    def leave(self) -> None:
        """One episode ended: the others no longer wait for it."""
        self.live -= 1
        self._flush_if_all_waiting()

    def _flush_if_all_waiting(self) -> None:
        if not self.pending or len(self.pending) < self.live:
            return
        batch, self.pending = self.pending, []
        seeds = [r.seed for r in batch]
        seed = None if None in seeds else int.from_bytes(hashlib.sha256(repr(seeds).encode()).digest()[:4], "big")
        try:
            rows = generate_batch(self.model, [r.ids for r in batch], [r.max_new_tokens for r in batch],
                                  self.temperature, self.top_p, self.eos_token_id, self.pad_token_id, seed)
        except Exception as exc:  # every waiting episode sees the failure, none waits forever
            for request in batch:
                request.answer.set_exception(exc)
            return
        self.batches.append(len(batch))
        for request, row in zip(batch, rows, strict=True):
            request.answer.set_result(row)


class BatchSlot:
    """One episode's view of a `GroupBatcher`: `await generate(...)` returns that episode's new tokens."""

    def __init__(self, batcher: GroupBatcher) -> None:
        self.batcher = batcher

    async def generate(self, ids: Sequence[int], max_new_tokens: int, temperature: float, top_p: float = 1.0,
                       seed: int | None = None) -> list[int]:
        return await self.batcher.request(ids, max_new_tokens, seed)

    def leave(self) -> None:
        self.batcher.leave()
